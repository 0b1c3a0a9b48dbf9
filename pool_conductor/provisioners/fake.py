"""The fake provisioner: nodes go through their workflows on a timer."""
import datetime
import typing

from oslo_log import log

from pool_conductor import binding
from pool_conductor.conf import CONF
from pool_conductor.db import api as db_api
from pool_conductor.db import workflows as workflows_db
from pool_conductor.provisioners import base
from pool_conductor import states

if typing.TYPE_CHECKING:
    import sqlalchemy as sa

LOG = log.getLogger(__name__)

# Node params that make a stage go wrong: the node enters the stage they
# name not runnable, with an error (FAIL_AT_STAGE) or without one.
FAIL_AT_STAGE = 'fake/fail-at-stage'
NOT_RUNNABLE_AT_STAGE = 'fake/not-runnable-at-stage'


def next_stage(stage: str | None, stages: list[str]) -> str | None:
    """The stage after stage in a workflow: the first one when the node
    is in none of them yet, None after the last."""
    if stage not in stages:
        return stages[0] if stages else None
    index = stages.index(stage) + 1
    return stages[index] if index < len(stages) else None


class FakeProvisioner(base.Provisioner):
    """Moves a node to the next stage of its workflow (node.workflow, its
    stages from /v1/workflows) every ``[provisioner] fake_stage_delay``
    seconds, as if each stage took that long to run.

    A node enters the stage its ``fake/fail-at-stage`` param names not
    runnable, with a last_error saying that the stage failed, and the
    stage its ``fake/not-runnable-at-stage`` param names not runnable
    without an error: the node is held (HoldBuild or HoldDestroy) until a
    node PATCH makes it runnable again, and then goes on from that stage.
    A node whose workflow does not exist, lacks the stage the node waits
    for or ends before reaching it, is held with a last_error that says
    so. Each stage that goes well clears the last_error.
    """

    def due(self, node: 'sa.Row') -> bool:
        """A node is due when its current stage has lasted
        ``[provisioner] fake_stage_delay`` seconds."""
        delay = datetime.timedelta(seconds=CONF.provisioner.fake_stage_delay)
        return (node.stage_updated_at is None
                or db_api.utcnow() - node.stage_updated_at >= delay)

    def advance(self, context, node: 'sa.Row', host: str) -> bool:
        if node.pool_status not in states.POOL_MOVING:
            return False
        if binding.progress(context, node, {}):
            # At its wait stage or not runnable already: only its pool
            # status lags behind.
            return binding.report_driven(context, node, host, {
                'runnable': node.runnable is not False})
        stages = workflows_db.workflow_stages(context, node.workflow)
        if stages is None:
            return self._hold(context, node, host, (
                'Workflow %s does not exist' % node.workflow
                if node.workflow else 'The node has no workflow'))
        if node.pool_wait_stage not in stages:
            return self._hold(context, node, host, (
                'Workflow %s has no stage %s to wait for'
                % (node.workflow, node.pool_wait_stage)))
        stage = next_stage(node.stage, stages)
        if stage is None:
            return self._hold(context, node, host, (
                'Workflow %s ended at stage %s without reaching stage %s'
                % (node.workflow, node.stage, node.pool_wait_stage)))
        params = node.params or {}
        values = {'stage': stage, 'runnable': True, 'last_error': None}
        if params.get(FAIL_AT_STAGE) == stage:
            values.update(runnable=False, last_error=(
                'Stage %s of workflow %s failed (node param %s)'
                % (stage, node.workflow, FAIL_AT_STAGE)))
        elif params.get(NOT_RUNNABLE_AT_STAGE) == stage:
            values.update(runnable=False)
        moved = binding.report_driven(context, node, host, values)
        if moved:
            LOG.debug('Node %(node)s entered stage %(stage)s of workflow '
                      '%(workflow)s%(held)s',
                      {'node': node.uuid, 'stage': stage,
                       'workflow': node.workflow,
                       'held': '' if values['runnable']
                       else ', not runnable'})
        return moved

    @staticmethod
    def _hold(context, node: 'sa.Row', host: str, error: str) -> bool:
        LOG.warning('Node %(node)s cannot go on: %(error)s',
                    {'node': node.uuid, 'error': error})
        return binding.report_driven(context, node, host, {
            'runnable': False, 'last_error': error})
