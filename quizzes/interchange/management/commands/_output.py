"""The commands' standard output when it goes to a pipe that its reader closes early
(`manage.py exportquiz SLUG | head -1`): the command carries on and ends as it would, writing
no more, instead of ending in a BrokenPipeError."""

import os
import sys

from django.core.management.base import BaseCommand, OutputWrapper


def _reader_gone() -> None:
    """Send what is left to write to nowhere: nobody reads it, and Python would otherwise
    fail again flushing it on the way out."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


class _Output(OutputWrapper):
    def write(self, msg="", style_func=None, ending=None):
        try:
            super().write(msg, style_func, ending)
        except BrokenPipeError:
            _reader_gone()


class PipeCommand(BaseCommand):
    """A command whose output may be cut short by its reader."""

    def __init__(self, stdout=None, stderr=None, no_color=False, force_color=False):
        super().__init__(stdout, stderr, no_color, force_color)
        self.stdout = _Output(stdout or sys.stdout)

    def execute(self, *args, **options):
        try:
            return super().execute(*args, **options)
        finally:
            try:
                sys.stdout.flush()
            except BrokenPipeError:
                _reader_gone()

    def write_bytes(self, content: bytes) -> None:
        """Bytes to standard output (a zip), as the text goes."""
        try:
            sys.stdout.buffer.write(content)
            sys.stdout.flush()
        except BrokenPipeError:
            _reader_gone()
