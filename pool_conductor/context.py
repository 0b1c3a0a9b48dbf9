"""Request context, carrying the transaction of oslo.db's enginefacade."""
from oslo_context import context
from oslo_db.sqlalchemy import enginefacade


@enginefacade.transaction_context_provider
class RequestContext(context.RequestContext):
    """The security and database context of one request or job."""

    def to_policy_values(self) -> dict:
        values = super().to_policy_values()
        values['project_id'] = self.project_id
        return values


def get_admin_context() -> RequestContext:
    """A context with full rights, for conductor jobs."""
    return RequestContext(is_admin=True, overwrite=False)
