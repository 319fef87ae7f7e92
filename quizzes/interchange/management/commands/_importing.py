"""What importquiz and importcontent share: read the file, show the plan, write it or not."""

from pathlib import Path

from django.core.management.base import CommandError
from django.utils.translation import gettext

from quizzes.interchange.importing import ImportPlan, import_apply, import_plan, plan_lines
from quizzes.interchange.management.commands._output import PipeCommand
from quizzes.interchange.quizfile import QuizFileError


class ImportCommand(PipeCommand):
    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument(
            "--dry-run", action="store_true", help="Show what the import would do; write nothing."
        )
        parser.add_argument(
            "--import-rest",
            action="store_true",
            help="When questions or files of the file are left out, import the rest (by "
            "default the file is refused, as Moodle refuses a file it can't read whole).",
        )

    def run_import(
        self, file: Path, *, dry_run: bool, import_rest: bool = False, **choices
    ) -> ImportPlan:
        try:
            content = file.read_bytes()
        except OSError as error:
            raise CommandError(f"{file}: {error.strerror}.") from None
        plan = import_plan(content=content, name=file.name, import_rest=import_rest, **choices)
        if plan.errors:
            raise CommandError(f"{file} was not imported:\n" + "\n".join(plan_lines(plan)[1:]))
        self.stdout.write("\n".join(plan_lines(plan)))
        refused = gettext(
            "What is listed under “Left out:” can't be imported, so the file is refused: "
            "give --import-rest to import the rest."
        )
        if dry_run:
            self.stdout.write(gettext("Dry run: nothing was written."))
            if plan.leaves_out:
                self.stdout.write(refused)
            return plan
        if plan.leaves_out:
            raise CommandError(f"{file} was not imported. {refused}")
        if not plan.changes:
            return plan
        try:
            import_apply(plan=plan)
        except QuizFileError as error:
            raise CommandError(f"{file} was not imported:\n" + "\n".join(error.messages)) from None
        self.stdout.write(gettext("Imported."))
        return plan
