"""The admin's large imports, planned and written by the task worker (django-tasks: Django 6's
tasks framework, or its backport on 5.2, with the database backend; `manage.py db_worker`).

A file of over `settings.IMPORT_BACKGROUND_BYTES` of text takes longer to check than a web
worker may spend on a request. Its preview and its confirm are then tasks, each doing what
the request would have (`import_plan`, then `import_apply` in one transaction) on the file
kept between them (`uploads`); the admin's progress page shows the task waiting, running,
failed (with its error; a failed write wrote nothing) or done, with the plan's messages. A
task's result is a dict of texts (JSON), in the language of the admin who started it.
"""

import io
import zipfile
from dataclasses import replace

from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils import translation
from django.utils.translation import gettext

from quizzes.interchange import archive
from quizzes.interchange.errors import QuizFileError
from quizzes.interchange.importing import (
    Change,
    ImportPlan,
    import_apply,
    import_plan,
    plan_summary,
)
from quizzes.interchange.uploads import UploadGone, upload_discard, upload_redigested, upload_take

try:  # Django 6
    from django.tasks import TaskResultStatus, task
    from django.tasks.exceptions import TaskResultDoesNotExist
except ImportError:  # Django 5.2: the backport
    from django_tasks import TaskResultStatus, task
    from django_tasks.exceptions import TaskResultDoesNotExist

PREVIEW = "preview"
IMPORTED = "imported"
GUIDE_PERMISSIONS = ("guides.add_guidepath", "guides.change_guidepath")

__all__ = [
    "TaskResultDoesNotExist",
    "TaskResultStatus",
    "import_confirm_task",
    "import_preview_task",
    "in_background",
]


def in_background(content: bytes) -> bool:
    """Whether a file is large enough to be imported by the task worker: its bytes, or a
    zip's entries' (as the zip's directory gives them, under `archive`'s limits)."""
    size = len(content)
    if archive.is_zip(content):
        try:
            with zipfile.ZipFile(io.BytesIO(content)) as opened:
                size = sum(entry.file_size for entry in opened.infolist())
        except (zipfile.BadZipFile, ValueError):
            pass  # The plan says what is wrong with it.
    return size > settings.IMPORT_BACKGROUND_BYTES


def plan_for(
    user, *, content: bytes, choices: dict, texts_rendered: bool = False, import_rest: bool = False
):
    """The plan of an import, refused when it writes guide paths the user may not."""
    plan = import_plan(
        content=content, texts_rendered=texts_rendered, import_rest=import_rest, **choices
    )
    if plan.writes_guide_paths and not user.has_perms(GUIDE_PERMISSIONS):
        message = gettext("This file writes guide paths, which you may not add or change.")
        plan = replace(plan, errors=(("", message),))
    return plan


def plan_shown(plan, *, token: str = "", notice: str = "", file_name: str = "") -> dict:
    """What the preview page shows of a plan, as a task's result."""
    return {
        "kind": PREVIEW,
        "file_name": file_name,
        "format": plan.format,
        "summary": plan_summary(plan),
        "changes": [[c.kind, c.thing, c.place, c.what] for c in plan.changes],
        "errors": [list(pair) for pair in plan.errors],
        "problems": [list(pair) for pair in plan.problems],
        "warnings": [list(pair) for pair in plan.warnings],
        "matches": [list(pair) for pair in plan.matches],
        "leaves_out": plan.leaves_out,
        "token": token if not plan.errors and plan.changes else "",
        "notice": notice,
    }


class ShownPlan:
    """A preview task's result as the preview template reads a plan."""

    def __init__(self, shown: dict):
        self.format = shown["format"]
        self.changes = [Change(*change) for change in shown["changes"]]
        self.errors = [tuple(pair) for pair in shown["errors"]]
        self.problems = [tuple(pair) for pair in shown["problems"]]
        self.warnings = [tuple(pair) for pair in shown["warnings"]]
        self.matches = [tuple(pair) for pair in shown["matches"]]
        self.leaves_out = shown["leaves_out"]


def _refused(message: str) -> dict:
    return plan_shown(ImportPlan(format="", errors=(("", message),)))


def _gone() -> dict:
    return _refused(gettext("The file of this preview is gone: upload it again."))


@task()
def import_preview_task(*, token: str, user_id: int, language: str) -> dict:
    """Plan the kept file of `token` as the admin's preview does; its result the page."""
    with translation.override(language):
        try:
            kept = upload_take(token=token)
        except UploadGone:
            return _gone()
        user = get_user_model().objects.get(pk=user_id)
        plan = plan_for(user, content=kept.content, choices=kept.choices)
        if plan.errors or not plan.changes:
            upload_discard(token=token)
        token = upload_redigested(token=token, digest=plan.digest)
        return plan_shown(plan, token=token, file_name=kept.choices["name"])


@task()
def import_confirm_task(*, token: str, user_id: int, language: str, import_rest: bool) -> dict:
    """Write what the preview of `token` showed (`import_rest`: the editor chose to import
    the rest of a file that leaves parts out), in one transaction, or nothing: the site
    changed since, or parts are left out that the editor did not choose to leave (the
    preview again), or the write was refused. The kept file goes once written or refused; a
    task that fails leaves it to go with the stale."""
    with translation.override(language):
        try:
            kept = upload_take(token=token)
        except UploadGone:
            return _gone()
        user = get_user_model().objects.get(pk=user_id)
        plan = plan_for(
            user,
            content=kept.content,
            choices=kept.choices,
            texts_rendered=True,
            import_rest=import_rest,
        )
        if plan.digest != kept.digest or not plan.can_apply:
            notice = ""
            if plan.digest != kept.digest:
                notice = gettext("The site changed since the preview: check the changes again.")
            token = upload_redigested(token=token, digest=plan.digest)
            return plan_shown(plan, token=token, notice=notice, file_name=kept.choices["name"])
        try:
            import_apply(plan=plan)
        except QuizFileError as error:
            upload_discard(token=token)
            refused = replace(plan, errors=tuple(error.errors))
            return plan_shown(refused, file_name=kept.choices["name"])
        upload_discard(token=token)
        return {"kind": IMPORTED, "summary": [gettext("Imported."), *plan_summary(plan)]}
