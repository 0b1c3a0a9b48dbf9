"""``openstack pool workflow ...`` commands."""
import logging

from osc_lib.command import command

from pool_client import utils

LIST_FIELDS = ('name', 'description', 'stages')


def _add_stage_argument(parser, help_text: str) -> None:
    parser.add_argument('--stage', metavar='<stage>', action='append',
                        dest='stages', help=help_text)


class CreateWorkflow(command.ShowOne):
    """Create a workflow: a named, ordered list of stages."""

    log = logging.getLogger(__name__ + '.CreateWorkflow')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('name', metavar='<name>', help='Workflow name.')
        parser.add_argument('--description', metavar='<description>',
                            help='Description of the workflow.')
        _add_stage_argument(parser, 'Stage of the workflow, in order '
                                    '(repeat option for several stages).')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        fields = {k: getattr(parsed_args, k)
                  for k in ('name', 'description', 'stages')
                  if getattr(parsed_args, k) is not None}
        return utils.show(
            self.app.client_manager.pool.workflow_create(**fields))


class ListWorkflow(command.Lister):
    """List workflows."""

    log = logging.getLogger(__name__ + '.ListWorkflow')

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        return utils.rows(self.app.client_manager.pool.workflow_list(),
                          LIST_FIELDS)


class ShowWorkflow(command.ShowOne):
    """Show a workflow."""

    log = logging.getLogger(__name__ + '.ShowWorkflow')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('workflow', metavar='<workflow>',
                            help='Workflow name.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        return utils.show(self.app.client_manager.pool.workflow_get(
            parsed_args.workflow))


class SetWorkflow(command.Command):
    """Set properties of a workflow."""

    log = logging.getLogger(__name__ + '.SetWorkflow')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('workflow', metavar='<workflow>',
                            help='Workflow name.')
        parser.add_argument('--description', metavar='<description>',
                            help='Set the description of the workflow.')
        stages = parser.add_mutually_exclusive_group()
        _add_stage_argument(stages, 'Stage of the workflow, in order: the '
                                    'stages given replace all of them '
                                    '(repeat option for several stages).')
        stages.add_argument('--no-stage', dest='stages',
                            action='store_const', const=[],
                            help='Remove all the stages of the workflow.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        patch = utils.set_patch(parsed_args, ('description', 'stages'))
        utils.send_patch(self.log, client.workflow_update,
                         parsed_args.workflow, patch)


class UnsetWorkflow(command.Command):
    """Unset properties of a workflow."""

    log = logging.getLogger(__name__ + '.UnsetWorkflow')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('workflow', metavar='<workflow>',
                            help='Workflow name.')
        parser.add_argument('--description', action='store_true',
                            default=False,
                            help='Unset the description of the workflow.')
        parser.add_argument('--stages', action='store_true', default=False,
                            help='Remove all the stages of the workflow.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        patch = utils.unset_patch(parsed_args, ('description', 'stages'))
        utils.send_patch(self.log,
                         self.app.client_manager.pool.workflow_update,
                         parsed_args.workflow, patch, 'unset')


class DeleteWorkflow(command.Command):
    """Delete workflows no node runs."""

    log = logging.getLogger(__name__ + '.DeleteWorkflow')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('workflows', metavar='<workflow>', nargs='+',
                            help='Workflow names.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        utils.delete_each(self.app, 'workflow', parsed_args.workflows,
                          self.app.client_manager.pool.workflow_delete)
