"""Export and import pools and what they use as one content document."""
import json
import logging
import sys

from osc_lib.command import command
from osc_lib import exceptions


class ExportContent(command.Command):
    """Export the pools, profiles, workflows, providers and brokers as one
    JSON document (their secrets are left out), to a file or stdout."""

    log = logging.getLogger(__name__ + '.ExportContent')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('--file', metavar='<path>',
                            help='File to write the document to '
                                 '(default: stdout).')
        # --content-version: openstack's own --version prints its
        # version and exits, wherever it is on the line.
        for option, key in (('--name', 'name'),
                            ('--content-version', 'version'),
                            ('--description', 'description')):
            parser.add_argument(option, dest='meta_' + key,
                                metavar='<%s>' % key,
                                help='The %s of the document (its meta).'
                                     % key)
        return parser

    def take_action(self, parsed_args):
        document = self.app.client_manager.pool.content_export()
        meta = document.setdefault('meta', {})
        for key in ('name', 'version', 'description'):
            if getattr(parsed_args, 'meta_' + key) is not None:
                meta[key] = getattr(parsed_args, 'meta_' + key)
        text = json.dumps(document, indent=2, sort_keys=True) + '\n'
        if parsed_args.file:
            with open(parsed_args.file, 'w', encoding='utf-8') as f:
                f.write(text)
        else:
            self.app.stdout.write(text)


class ImportContent(command.Lister):
    """Import a content document: create or change the pools, profiles,
    workflows, providers and brokers it holds, all or none."""

    log = logging.getLogger(__name__ + '.ImportContent')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('file', metavar='<file>',
                            help='The JSON document, as pool export writes '
                                 'it ("-" for stdin).')
        return parser

    def take_action(self, parsed_args):
        try:
            if parsed_args.file == '-':
                document = json.load(getattr(self.app, 'stdin', sys.stdin))
            else:
                with open(parsed_args.file, encoding='utf-8') as f:
                    document = json.load(f)
        except OSError as exc:
            raise exceptions.CommandError(
                'Cannot read %s: %s' % (parsed_args.file, exc)) from exc
        except ValueError as exc:
            raise exceptions.CommandError(
                '%s is not a JSON document: %s' % (parsed_args.file, exc)
            ) from exc
        done = self.app.client_manager.pool.content_import(document)
        rows = [(kind, name, what)
                for kind, outcomes in sorted(done.items())
                for what in ('created', 'updated', 'unchanged')
                for name in outcomes.get(what) or ()]
        return ('Kind', 'Name', 'Result'), rows
