from pathlib import Path

from quizzes.interchange.bundles import bundle_export
from quizzes.interchange.management.commands._output import PipeCommand


class Command(PipeCommand):
    help = (
        "Write every guide path, quiz, question and choice as one bundle (.zip) for "
        "importcontent; to standard output unless --output is given."
    )

    def add_arguments(self, parser):
        parser.add_argument("--output", type=Path, help="The .zip file to write.")

    def handle(self, *args, output: Path | None, **options):
        content = bundle_export()
        if output is None:
            self.write_bytes(content)
            return
        output.write_bytes(content)
        self.stderr.write(f"Wrote {output} ({len(content)} bytes).")
