"""The quiz admin's import pages (upload, preview, confirm, the format's documentation) and
its export actions, one mixin each."""

from dataclasses import replace

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path
from django.utils.decorators import method_decorator
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from quizzes.interchange import background
from quizzes.interchange.exporting import quizzes_export
from quizzes.interchange.importing import (
    FORMAT_BUNDLE,
    FORMAT_GIFT,
    FORMAT_MOODLE_XML,
    FORMAT_YAML,
    MAX_UPLOAD_BYTES,
    ImportPlan,
    import_apply,
    plan_summary,
)
from quizzes.interchange.quizfile import QuizFileError
from quizzes.interchange.uploads import UploadGone, upload_discard, upload_keep, upload_take
from quizzes.markup import rendering
from quizzes.models import Quiz


class QuizActionForm(helpers.ActionForm):
    """The quiz list's action bar, with the language a GIFT or Moodle XML export is in."""

    language = forms.ChoiceField(
        label=_("Language of GIFT and Moodle XML"),
        choices=settings.LANGUAGES,
        initial=settings.LANGUAGE_CODE,
        required=False,
    )


class QuizExportMixin:
    """The export actions of the quiz admin (a ModelAdmin of Quiz; names "export",
    "export_gift" and "export_moodle_xml" in its `actions`), kept beside the formats they
    write rather than in the admin of quizzes."""

    action_form = QuizActionForm

    @admin.action(description=_("Export as quiz files"), permissions=["view"])
    def export(self, request, queryset):
        """One quiz: its file (a .zip when it has images); several: one bundle (.zip)."""
        return _export_response(request, queryset, FORMAT_YAML)

    @admin.action(description=_("Export as GIFT"), permissions=["view"])
    def export_gift(self, request, queryset):
        """One GIFT file in the language chosen, a category per quiz."""
        return _export_response(request, queryset, FORMAT_GIFT)

    @admin.action(description=_("Export as Moodle XML"), permissions=["view"])
    def export_moodle_xml(self, request, queryset):
        """One Moodle XML file in the language chosen, a category per quiz, with its images."""
        return _export_response(request, queryset, FORMAT_MOODLE_XML)


def _export_response(request: HttpRequest, queryset, file_format: str) -> HttpResponse:
    # The admin runs an action only once its form is valid: the language is one of the site's.
    language = request.POST.get("language") or settings.LANGUAGE_CODE
    export = quizzes_export(
        quizzes=list(queryset.order_by("slug")), file_format=file_format, language=language
    )
    response = HttpResponse(export.content, content_type=export.content_type)
    response["Content-Disposition"] = f'attachment; filename="{export.filename}"'
    return response


# The formats an editor imports and exports, as the repository documents them.
FORMAT_DOCUMENT = settings.BASE_DIR / "docs" / "quiz-format.md"


class QuizImportMixin:
    """The import pages of the quiz admin (a ModelAdmin of Quiz): upload, preview and
    confirm, at import/ and import/confirm/ (the change list links to them), and the formats'
    documentation at format/ (the upload page links to it)."""

    def get_urls(self):
        return [
            path(
                "import/",
                self.admin_site.admin_view(self.import_view),
                name="quizzes_quiz_import",
            ),
            path(
                "import/confirm/",
                self.admin_site.admin_view(self.import_confirm_view),
                name="quizzes_quiz_import_confirm",
            ),
            path(
                "import/progress/<str:result_id>/",
                self.admin_site.admin_view(self.import_progress_view),
                name="quizzes_quiz_import_progress",
            ),
            path(
                "format/",
                self.admin_site.admin_view(self.format_view),
                name="quizzes_quiz_format",
            ),
            *super().get_urls(),
        ]

    def import_view(self, request: HttpRequest):
        """Upload a file: the preview of what it would change, with a button to confirm."""
        self._import_permission(request)
        form = QuizImportForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            content = form.cleaned_data["file"].read()
            choices = form.import_choices()
            if background.in_background(content):
                token = upload_keep(content=content, choices=choices, digest="")
                return _enqueued(request, background.import_preview_task, token)
            plan = self._import_plan(request, content=content, choices=choices)
            return self._import_preview(request, plan, content=content, choices=choices)
        status = 200
        if form.has_error("file", "too_big"):
            status = 413
        elif request.method == "POST":
            status = 400
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": gettext("Import a file"),
            "form": form,
        }
        return TemplateResponse(request, "admin/quizzes/quiz/import.html", context, status=status)

    def format_view(self, request: HttpRequest):
        """docs/quiz-format.md, for the editors who write and import quiz files (in English,
        as the repository has it)."""
        title, html = rendering.document(FORMAT_DOCUMENT.read_text(encoding="utf-8"))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": title,
            "document": mark_safe(html),  # noqa: S308 (our own document, its HTML escaped)
        }
        return TemplateResponse(request, "admin/quizzes/quiz/format.html", context)

    @method_decorator(require_POST)
    def import_confirm_view(self, request: HttpRequest):
        """Write what the preview showed, or nothing: cancelled, or the site changed since."""
        self._import_permission(request)
        token = request.POST.get("token", "")
        try:
            kept = upload_take(token=token)
        except UploadGone:
            messages.error(request, gettext("The file of this preview is gone: upload it again."))
            return redirect("admin:quizzes_quiz_import")
        if "cancel" in request.POST:
            upload_discard(token=token)
            messages.info(request, gettext("Import cancelled: nothing was written."))
            return redirect("admin:quizzes_quiz_changelist")
        if background.in_background(kept.content):
            rest = "import_rest" in request.POST
            return _enqueued(request, background.import_confirm_task, token, import_rest=rest)
        # The kept file is the one its preview planned: its texts were rendered and found right.
        plan = self._import_plan(
            request,
            content=kept.content,
            choices=kept.choices,
            texts_rendered=True,
            import_rest="import_rest" in request.POST,
        )
        if plan.digest != kept.digest or not plan.can_apply:
            upload_discard(token=token)
            if plan.digest != kept.digest:
                message = gettext("The site changed since the preview: check the changes again.")
                messages.warning(request, message)
            return self._import_preview(request, plan, content=kept.content, choices=kept.choices)
        try:
            import_apply(plan=plan)
        except QuizFileError as error:
            plan = replace(plan, errors=tuple(error.errors))
            return self._import_preview(request, plan, content=b"", choices=kept.choices)
        finally:
            upload_discard(token=token)
        messages.success(request, " ".join([gettext("Imported."), *plan_summary(plan)]))
        return redirect("admin:quizzes_quiz_changelist")

    def import_progress_view(self, request: HttpRequest, result_id: str):
        """A background import's page: waiting or running (it reloads itself), failed (with
        its error), or its result: the preview to confirm, or what was imported."""
        self._import_permission(request)
        result = _task_result(request, result_id)
        context = {**self.admin_site.each_context(request), "opts": self.opts}
        if result.status != background.TaskResultStatus.SUCCESSFUL:
            failed = result.status == background.TaskResultStatus.FAILED
            error = result.errors[-1].exception_class_path if result.errors else ""
            context |= {
                "title": gettext("Import failed") if failed else gettext("Import in progress"),
                "result": result,
                "failed": failed,
                "error": error.rsplit(".", 1)[-1],
            }
            return TemplateResponse(request, "admin/quizzes/quiz/import_progress.html", context)
        shown = result.return_value
        if shown["kind"] == background.IMPORTED:
            context |= {"title": gettext("Imported"), "summary": shown["summary"]}
            return TemplateResponse(request, "admin/quizzes/quiz/import_progress.html", context)
        plan = background.ShownPlan(shown)
        context |= {
            "title": gettext("Check the import"),
            "plan": plan,
            "summary": shown["summary"],
            "token": shown["token"],
            "file_name": shown["file_name"],
        }
        if shown["notice"]:
            messages.warning(request, shown["notice"])
        status = 400 if plan.errors else 200
        return TemplateResponse(
            request, "admin/quizzes/quiz/import_preview.html", context, status=status
        )

    def _import_permission(self, request: HttpRequest) -> None:
        if not (self.has_add_permission(request) and self.has_change_permission(request)):
            raise PermissionDenied

    def _import_plan(
        self,
        request: HttpRequest,
        *,
        content: bytes,
        choices: dict,
        texts_rendered: bool = False,
        import_rest: bool = False,
    ) -> ImportPlan:
        """The plan of an import, refused when it writes guide paths the user may not."""
        return background.plan_for(
            request.user,
            content=content,
            choices=choices,
            texts_rendered=texts_rendered,
            import_rest=import_rest,
        )

    def _import_preview(self, request, plan: ImportPlan, *, content: bytes, choices: dict):
        """The plan on a page; a plan that writes something keeps its file for the confirmation
        (or, when it leaves parts out, for importing the rest)."""
        token = ""
        if not plan.errors and plan.changes:
            token = upload_keep(content=content, choices=choices, digest=plan.digest)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": gettext("Check the import"),
            "plan": plan,
            "summary": plan_summary(plan),
            "token": token,
            "file_name": choices["name"],
        }
        status = 400 if plan.errors else 200
        return TemplateResponse(
            request, "admin/quizzes/quiz/import_preview.html", context, status=status
        )


def _enqueued(request: HttpRequest, task, token: str, **choices) -> HttpResponse:
    """Start a background import of the kept file of `token`; its page follows it."""
    language = get_language()
    result = task.enqueue(token=token, user_id=request.user.pk, language=language, **choices)
    return redirect("admin:quizzes_quiz_import_progress", result_id=result.id)


def _task_result(request: HttpRequest, result_id: str):
    """The result of a background import this user started; 404 for any other id."""
    try:
        result = background.import_preview_task.get_backend().get_result(result_id)
    except (background.TaskResultDoesNotExist, ValidationError, ValueError):
        raise Http404 from None
    if result.kwargs.get("user_id") != request.user.pk:
        raise Http404
    return result


class QuizImportForm(forms.Form):
    file = forms.FileField(
        label=_("File"),
        help_text=_(
            "A quiz file (YAML), a guides file, a bundle of the whole site (.zip), "
            "GIFT or Moodle XML."
        ),
    )

    file_format = forms.ChoiceField(
        label=_("Format"),
        required=False,
        choices=[
            ("", _("From the file's name")),
            (FORMAT_YAML, _("Quiz or guides file (YAML)")),
            (FORMAT_BUNDLE, _("Bundle of the whole site (.zip)")),
            (FORMAT_GIFT, "GIFT"),
            (FORMAT_MOODLE_XML, "Moodle XML"),
        ],
    )
    language = forms.ChoiceField(
        label=_("Language of a GIFT or Moodle XML file"),
        choices=settings.LANGUAGES,
        initial=settings.LANGUAGE_CODE,
        required=False,
        help_text=_(
            "Its texts fill this language of the quizzes they match (by title and position)."
        ),
    )
    quiz = forms.ModelChoiceField(
        label=_("Quiz to fill"),
        queryset=Quiz.objects.order_by("slug"),
        to_field_name="slug",
        required=False,
        help_text=_(
            "GIFT and Moodle XML: every question goes into this quiz, instead of "
            "one quiz per category."
        ),
    )

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > MAX_UPLOAD_BYTES:
            message = gettext("The file is %(size)s MB; at most %(limit)s MB can be imported.")
            sizes = {"size": round(upload.size / 2**20, 1), "limit": MAX_UPLOAD_BYTES // 2**20}
            raise ValidationError(message % sizes, code="too_big")
        return upload

    def import_choices(self) -> dict:
        """The import_plan arguments besides the content."""
        quiz = self.cleaned_data["quiz"]
        return {
            "name": self.cleaned_data["file"].name,
            "file_format": self.cleaned_data["file_format"] or None,
            "language": self.cleaned_data["language"] or settings.LANGUAGE_CODE,
            "quiz_slug": quiz.slug if quiz else None,
        }
