import sys
from pathlib import Path

from django.core.management.base import BaseCommand

from quizzes.interchange.bundles import bundle_export


class Command(BaseCommand):
    help = (
        "Write every guide path, quiz, question and choice as one bundle (.zip) for "
        "importcontent; to standard output unless --output is given."
    )

    def add_arguments(self, parser):
        parser.add_argument("--output", type=Path, help="The .zip file to write.")

    def handle(self, *args, output: Path | None, **options):
        content = bundle_export()
        if output is None:
            sys.stdout.buffer.write(content)
            return
        output.write_bytes(content)
        self.stderr.write(f"Wrote {output} ({len(content)} bytes).")
