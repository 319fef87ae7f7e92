import io
import posixpath
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, replace

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.storage import default_storage
from django.db import models
from django.db.models import Count, F, IntegerField, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path
from django.utils.decorators import method_decorator
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST
from modeltranslation.admin import TabbedTranslationAdmin, TranslationTabularInline

from quizzes.interchange.importing import (
    FORMAT_BUNDLE,
    FORMAT_GIFT,
    FORMAT_MOODLE_XML,
    FORMAT_YAML,
    MAX_UPLOAD_BYTES,
    ImportPlan,
    import_apply,
    import_plan,
    plan_summary,
)
from quizzes.interchange.quizfile import QuizFileError, quiz_archive
from quizzes.interchange.uploads import UploadGone, upload_discard, upload_keep, upload_take
from quizzes.learning.services import answers_regrade
from quizzes.markup.images import ImageError, image_check, image_name, image_url
from quizzes.markup.rendering import Rendered, render
from quizzes.models import (
    Answer,
    Attempt,
    Choice,
    ContentImage,
    Question,
    Quiz,
    choice_problems,
    other_languages,
    translated_fields,
)
from quizzes.snapshots import text_problems


def _count(model, field: str):
    """Count related rows in a subquery, so that several counts don't multiply each other."""
    rows = (
        model.objects.filter(**{field: OuterRef("pk")})
        .order_by()
        .values(field)
        .annotate(n=Count("pk"))
        .values("n")
    )
    return Coalesce(Subquery(rows, output_field=IntegerField()), 0)


def _count_column(annotation: str, description: str):
    """A list column showing the count `get_queryset` annotated, sortable by it."""

    @admin.display(description=description, ordering=annotation)
    def column(self, obj) -> int:
        return getattr(obj, annotation)

    return column


def _language_name(code: str) -> str:
    return dict(settings.LANGUAGES)[code]


class ContentForm(forms.ModelForm):
    """Refuses Markdown the learner pages would show broken (a formula that can't be turned
    into MathML, a text past the renderer's limits), on the field and language at fault."""

    def clean(self):
        cleaned_data = super().clean()
        for field in translated_fields(self._meta.model):
            for code, _name in settings.LANGUAGES:
                name = f"{field}_{code}"
                source = cleaned_data.get(name)
                if name in self.fields and isinstance(source, str):
                    for problem in text_problems(field=field, language=code, source=source):
                        self.add_error(name, problem)
        return cleaned_data


class PositionForm(ContentForm):
    """A row of a reorderable inline. Rows may trade positions, so a row's position is
    checked against the other submitted rows (the formset does that), not against the
    old positions still in the database (Django 6 checks constraints row by row)."""

    def validate_constraints(self):
        exclude = self._get_validation_exclusions() | {"position"}
        try:
            self.instance.validate_constraints(exclude=exclude)
        except ValidationError as error:
            self._update_errors(error)


class PositionsFormSet(forms.BaseInlineFormSet):
    """Saves reordered rows without tripping the database's unique position constraint."""

    def save(self, commit: bool = True):
        if commit:
            moved = [
                form.instance.pk
                for form in self.initial_forms
                if "position" in form.changed_data or self._should_delete_form(form)
            ]
            if moved:
                model = self.model
                top = self.queryset.order_by("-position").values_list("position", flat=True).first()
                model.objects.filter(pk__in=moved).update(position=F("position") + (top or 0) + 1)
        return super().save(commit)

    def _remaining_forms(self) -> list[forms.ModelForm]:
        return [
            form
            for form in self.forms
            if form.has_changed() or form.instance.pk
            if not self._should_delete_form(form) and form.cleaned_data
        ]


class QuestionInlineFormSet(PositionsFormSet):
    def clean(self):
        super().clean()
        if any(self.errors) or not self.instance.is_published:
            return
        kept = self._remaining_forms()
        if not kept:
            raise ValidationError(gettext("A published quiz needs at least one question."))
        if any(form.instance.pk is None for form in kept):
            raise ValidationError(
                gettext(
                    "A question added here has no choices yet, and this quiz is published. "
                    "Add the question from the “Add question” page with its choices, "
                    "or unpublish the quiz first."
                )
            )


class ChoiceInlineFormSet(PositionsFormSet):
    def clean(self):
        super().clean()
        if any(self.errors):
            return
        kind = self.instance.kind
        problems = choice_problems(
            kind, [form.cleaned_data.get("is_correct", False) for form in self._remaining_forms()]
        )
        if problems:
            raise ValidationError(problems)


class QuestionInline(TranslationTabularInline):
    model = Question
    form = PositionForm
    formset = QuestionInlineFormSet
    fields = ("position", "prompt", "kind")
    extra = 0
    show_change_link = True
    formfield_overrides = {models.TextField: {"widget": forms.Textarea(attrs={"rows": 2})}}


class ChoiceInline(TranslationTabularInline):
    model = Choice
    form = PositionForm
    formset = ChoiceInlineFormSet
    fields = ("position", "text", "is_correct", "feedback")
    extra = 2
    formfield_overrides = {models.TextField: {"widget": forms.Textarea(attrs={"rows": 2})}}


QUIZ_FIELDS = (
    "title",
    "slug",
    "description",
    "level",
    "guide_paths",
    "pass_mark",
    "shuffle_choices",
    "is_published",
)


class QuizAdminForm(ContentForm):
    class Meta:
        model = Quiz
        fields = QUIZ_FIELDS

    def clean_is_published(self) -> bool:
        is_published = self.cleaned_data["is_published"]
        if is_published:
            problems = self.instance.publish_problems()
            if problems:
                raise ValidationError([gettext("This quiz can't be published yet:"), *problems])
        return is_published


class MissingTranslationFilter(admin.SimpleListFilter):
    title = _("missing translation")
    parameter_name = "missing"

    def lookups(self, request, model_admin):
        return [(code, _language_name(code)) for code in other_languages()]

    def queryset(self, request, queryset):
        if self.value() in other_languages():
            return queryset.filter(**{f"missing_{self.value()}__gt": 0})
        return queryset


def _missing_column(language: str):
    def column(quiz: Quiz) -> str:
        missing = getattr(quiz, f"missing_{language}")
        if not missing:
            return gettext("complete")
        return ngettext("%(count)s missing", "%(count)s missing", missing) % {"count": missing}

    column.short_description = _language_name(language)
    column.admin_order_field = f"missing_{language}"
    column.__name__ = f"missing_{language}"
    return column


def _regraded_message(request: HttpRequest, regraded) -> None:
    messages.success(
        request,
        gettext(
            "Answers regraded. Answers changed: %(answers)s. Attempt scores changed: %(attempts)s."
        )
        % {"answers": regraded.answers, "attempts": regraded.attempts},
    )


class RecordedDeleteMixin:
    """A delete page that explains why content learners answered can't go, and offers
    to unpublish its quiz, instead of Django's generic list of protected objects."""

    def recorded_count(self, obj) -> int:
        raise NotImplementedError

    def quiz_of(self, obj) -> Quiz:
        raise NotImplementedError

    def delete_view(self, request, object_id, extra_context=None):
        obj = self.get_object(request, object_id)
        if obj is not None and self.has_delete_permission(request, obj):
            count = self.recorded_count(obj)
            if count:
                quiz = self.quiz_of(obj)
                context = {
                    **self.admin_site.each_context(request),
                    "opts": self.opts,
                    "object": obj,
                    "title": gettext("Cannot delete %(name)s") % {"name": self.opts.verbose_name},
                    "count": count,
                    "quiz": quiz,
                    "can_unpublish": quiz.is_published
                    and request.user.has_perm("quizzes.change_quiz"),
                }
                return TemplateResponse(
                    request, "admin/quizzes/recorded_delete.html", context, status=409
                )
        return super().delete_view(request, object_id, extra_context)


@admin.register(Quiz)
class QuizAdmin(RecordedDeleteMixin, TabbedTranslationAdmin):
    form = QuizAdminForm
    inlines = [QuestionInline]
    list_display = (
        "title",
        "slug",
        "level",
        "is_published",
        "question_count",
        *(_missing_column(code) for code in other_languages()),
        "attempt_count",
    )
    list_filter = ("guide_paths", "level", "is_published", MissingTranslationFilter)
    search_fields = ("slug", *(f"title_{code}" for code, _name in settings.LANGUAGES))
    prepopulated_fields = {"slug": (f"title_{settings.LANGUAGE_CODE}",)}
    filter_horizontal = ("guide_paths",)
    readonly_fields = ("translation_status",)
    fields = (*QUIZ_FIELDS, "translation_status")
    actions = ["publish", "unpublish", "regrade", "export"]
    change_list_template = "admin/quizzes/quiz/change_list.html"

    def get_queryset(self, request):
        queryset = super().get_queryset(request).with_missing_translations()
        return queryset.annotate(
            question_count=_count(Question, "quiz"), attempt_count=_count(Attempt, "quiz")
        )

    question_count = _count_column("question_count", _("questions"))
    attempt_count = _count_column("attempt_count", _("attempts"))

    @admin.display(description=_("translation status"))
    def translation_status(self, quiz: Quiz) -> str:
        if quiz.pk is None:
            return "-"
        rows = []
        for code in other_languages():
            missing = quiz.missing_translations(code)
            if missing:
                summary = ngettext(
                    "%(language)s: %(count)s field missing",
                    "%(language)s: %(count)s fields missing",
                    len(missing),
                ) % {"language": _language_name(code), "count": len(missing)}
                items = format_html_join("", "<li>{}</li>", ((place,) for place in missing))
                rows.append(format_html("<p>{}</p><ul>{}</ul>", summary, items))
            else:
                rows.append(
                    format_html(
                        "<p>{}</p>",
                        gettext("%(language)s: complete") % {"language": _language_name(code)},
                    )
                )
        return format_html_join("", "{}", ((row,) for row in rows))

    def recorded_count(self, quiz: Quiz) -> int:
        return quiz.attempts.count()

    def quiz_of(self, quiz: Quiz) -> Quiz:
        return quiz

    @admin.action(description=_("Publish selected quizzes"), permissions=["change"])
    def publish(self, request, queryset):
        published = 0
        for quiz in queryset.filter(is_published=False):
            problems = quiz.publish_problems()
            if problems:
                messages.error(
                    request,
                    gettext("%(quiz)s can't be published: %(problems)s")
                    % {"quiz": quiz, "problems": " ".join(problems)},
                )
                continue
            Quiz.objects.filter(pk=quiz.pk).update(is_published=True)
            published += 1
        if published:
            message = ngettext(
                "%(count)s quiz published.", "%(count)s quizzes published.", published
            )
            messages.success(request, message % {"count": published})

    @admin.action(description=_("Unpublish selected quizzes"), permissions=["change"])
    def unpublish(self, request, queryset):
        count = queryset.filter(is_published=True).update(is_published=False)
        message = ngettext("%(count)s quiz unpublished.", "%(count)s quizzes unpublished.", count)
        messages.success(request, message % {"count": count})

    @admin.action(description=_("Regrade answers"), permissions=["change"])
    def regrade(self, request, queryset):
        questions = Question.objects.filter(quiz__in=queryset.values("pk"))
        _regraded_message(request, answers_regrade(questions=questions))

    @admin.action(description=_("Export as quiz files"), permissions=["view"])
    def export(self, request, queryset):
        """One quiz: its file (a .zip when it has images); several: a .zip of their files."""
        quizzes = list(queryset.order_by("slug"))
        if len(quizzes) == 1:
            filename, content, content_type = quiz_archive(quiz=quizzes[0])
            response = HttpResponse(content, content_type=content_type)
            response["Content-Disposition"] = f'attachment; filename="{filename}"'
            return response
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for quiz in quizzes:
                filename, content, _content_type = quiz_archive(quiz=quiz)
                archive.writestr(filename, content)
        response = HttpResponse(buffer.getvalue(), content_type="application/zip")
        response["Content-Disposition"] = 'attachment; filename="quizzes.zip"'
        return response

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
                "<int:object_id>/unpublish/",
                self.admin_site.admin_view(self.unpublish_view),
                name="quizzes_quiz_unpublish",
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
        plan = self._import_plan(request, content=kept.content, choices=kept.choices)
        if plan.digest != kept.digest:
            upload_discard(token=token)
            messages.warning(
                request, gettext("The site changed since the preview: check the changes again.")
            )
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

    def _import_permission(self, request: HttpRequest) -> None:
        if not (self.has_add_permission(request) and self.has_change_permission(request)):
            raise PermissionDenied

    def _import_plan(self, request: HttpRequest, *, content: bytes, choices: dict) -> ImportPlan:
        """The plan of an import, refused when it writes guide paths the user may not."""
        plan = import_plan(content=content, **choices)
        guide_perms = ["guides.add_guidepath", "guides.change_guidepath"]
        if plan.guides is not None and not request.user.has_perms(guide_perms):
            message = gettext("This file writes guide paths, which you may not add or change.")
            return replace(plan, errors=(("", message),))
        return plan

    def _import_preview(self, request, plan: ImportPlan, *, content: bytes, choices: dict):
        """The plan on a page; a plan that writes something keeps its file for the confirmation."""
        token = ""
        if plan.can_apply and plan.changes:
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
        status = 200 if plan.can_apply else 400
        return TemplateResponse(
            request, "admin/quizzes/quiz/import_preview.html", context, status=status
        )

    @method_decorator(require_POST)
    def unpublish_view(self, request: HttpRequest, object_id: int):
        quiz = get_object_or_404(Quiz, pk=object_id)
        if not self.has_change_permission(request, quiz):
            raise PermissionDenied
        Quiz.objects.filter(pk=quiz.pk).update(is_published=False)
        messages.success(
            request,
            gettext("“%(quiz)s” is unpublished: learners no longer see it.") % {"quiz": quiz},
        )
        return redirect("admin:quizzes_quiz_change", quiz.pk)


class QuizImportForm(forms.Form):
    file = forms.FileField(
        label=_("File"),
        help_text=_(
            "A quiz file (YAML), a guides file, a bundle of the whole site (.zip), "
            "GIFT or Moodle XML: see docs/quiz-format.md."
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


PREVIEW = "_preview"


class PreviewForm(ContentForm):
    """The question form of a Preview submit: checked as for saving, but never valid, so the
    admin shows it again with what was typed (and its errors, if any) instead of saving it."""

    def is_valid(self) -> bool:
        super().is_valid()
        return False


@dataclass(frozen=True)
class PreviewChoice:
    """A choice as learners would read it, with whether it is right and its feedback."""

    text: Rendered
    is_correct: bool
    feedback: Rendered


@dataclass(frozen=True)
class Preview:
    """A question as learners of one language would read it, in the admin."""

    language: str
    name: str
    prompt: Rendered
    choices: list[PreviewChoice]
    explanation: Rendered
    fallback: bool  # Some texts show in the default language: this one has none.


def _language_preview(
    code: str, value: Callable[[str], str], choices: list[Callable[[str], str | bool]]
) -> Preview:
    """One language's preview, from `value("prompt_fr")`… of the question and of each choice.

    A text missing in this language shows in the default one, as learners would see it.
    """
    default = settings.LANGUAGE_CODE
    fallbacks = []

    def shown(get, field: str, *, inline: bool) -> Rendered:
        text = get(f"{field}_{code}") or ""
        if not text and get(f"{field}_{default}"):
            fallbacks.append(field)
            return render(get(f"{field}_{default}"), language=default, inline=inline)
        return render(text, language=code, inline=inline)

    return Preview(
        language=code,
        name=_language_name(code),
        prompt=shown(value, "prompt", inline=True),
        choices=[
            PreviewChoice(
                text=shown(choice, "text", inline=True),
                is_correct=bool(choice("is_correct")),
                feedback=shown(choice, "feedback", inline=False),
            )
            for choice in choices
        ],
        explanation=shown(value, "explanation", inline=False),
        fallback=bool(fallbacks),
    )


@admin.register(Question)
class QuestionAdmin(RecordedDeleteMixin, TabbedTranslationAdmin):
    """Besides Django's buttons, "Preview" shows the typed question as learners will read it
    in each language, without saving; the change page also previews the saved question."""

    form = ContentForm
    inlines = [ChoiceInline]
    change_form_template = "admin/quizzes/question/change_form.html"
    list_display = ("prompt", "quiz", "position", "kind", "choice_count", "answer_count")
    list_filter = ("quiz__guide_paths", "quiz__level", "quiz__is_published", "quiz")
    list_select_related = ("quiz",)
    search_fields = tuple(f"prompt_{code}" for code, _name in settings.LANGUAGES)
    fields = ("quiz", "position", "kind", "prompt", "explanation", "guide_url")
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
    actions = ["regrade"]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(
                choice_count=_count(Choice, "question"), answer_count=_count(Answer, "question")
            )
        )

    choice_count = _count_column("choice_count", _("choices"))
    answer_count = _count_column("answer_count", _("answers"))

    def recorded_count(self, question: Question) -> int:
        return question.answers.count()

    def get_form(self, request, obj=None, **kwargs):
        if request.method == "POST" and PREVIEW in request.POST:
            kwargs["form"] = PreviewForm
        return super().get_form(request, obj, **kwargs)

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        form = context["adminform"].form
        if form.is_bound:
            rows = [
                row
                for inline in context["inline_admin_formsets"]
                for row in inline.formset.forms
                if (row.has_changed() or row.instance.pk) and not row["DELETE"].value()
            ]
            choices = [lambda name, row=row: row[name].value() for row in rows]
            previews = [
                _language_preview(code, lambda name: form[name].value(), choices)
                for code, _name in settings.LANGUAGES
            ]
        elif obj is not None:
            choices = [lambda name, c=c: getattr(c, name) for c in obj.choices.all()]
            previews = [
                _language_preview(code, lambda name: getattr(obj, name), choices)
                for code, _name in settings.LANGUAGES
            ]
        else:
            previews = []
        context |= {"previews": previews, "previewing": PREVIEW in request.POST}
        return super().render_change_form(request, context, add, change, form_url, obj)

    def quiz_of(self, question: Question) -> Quiz:
        return question.quiz

    def save_formset(self, request, form, formset, change):
        regrade_needed = change and any(
            "is_correct" in choice_form.changed_data for choice_form in formset.forms
        )
        super().save_formset(request, form, formset, change)
        answers = form.instance.answers.count() if regrade_needed else 0
        if answers:
            messages.warning(
                request,
                ngettext(
                    "This question has %(count)s recorded answer. It keeps the grade it was "
                    "given; to grade it against the new correct choice, use the “Regrade "
                    "answers” action on the list of questions.",
                    "This question has %(count)s recorded answers. They keep the grades they "
                    "were given; to grade them against the new correct choice, use the "
                    "“Regrade answers” action on the list of questions.",
                    answers,
                )
                % {"count": answers},
            )

    @admin.action(description=_("Regrade answers"), permissions=["change"])
    def regrade(self, request, queryset):
        _regraded_message(request, answers_regrade(questions=queryset))


class ContentImageForm(forms.ModelForm):
    """An upload checked with Pillow (type, size) and named by its content
    (quizzes/markup/images.py)."""

    class Meta:
        model = ContentImage
        fields = ("file",)

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload is None or upload == self.instance.file:
            return upload
        data = upload.read()
        try:
            name = image_name(data=data, extension=image_check(data=data))
        except ImageError as error:
            raise ValidationError(str(error)) from None
        taken = ContentImage.objects.filter(file=name).exclude(pk=self.instance.pk).first()
        if taken is not None:
            raise ValidationError(
                gettext("This image is already uploaded, as “%(image)s”.") % {"image": taken}
            )
        if default_storage.exists(name):  # Imported with a quiz file: the same bytes.
            return name
        upload.seek(0)
        upload.name = posixpath.basename(name)
        return upload


@admin.register(ContentImage)
class ContentImageAdmin(TabbedTranslationAdmin):
    form = ContentImageForm
    list_display = ("thumbnail", "alt", "reference", "uploaded_at")
    fields = ("file", "alt", "thumbnail", "reference")
    readonly_fields = ("thumbnail", "reference")
    search_fields = tuple(f"alt_{code}" for code, _name in settings.LANGUAGES)

    @admin.display(description=_("image"))
    def thumbnail(self, image: ContentImage) -> str:
        if not image.file:
            return "-"
        return format_html(
            '<img src="{}" alt="" style="max-width: 12rem; max-height: 8rem">', image.file.url
        )

    @admin.display(description=_("Markdown to paste into a text"))
    def reference(self, image: ContentImage) -> str:
        if not image.file:
            return gettext("Shown once the image is saved.")
        rows = (
            (_language_name(code), getattr(image, f"alt_{code}") or "…", image_url(image.file.name))
            for code, _name in settings.LANGUAGES
        )
        return format_html(
            "<ul>{}</ul>", format_html_join("", "<li>{}: <code>![{}]({})</code></li>", rows)
        )


class RecordedAdmin(admin.ModelAdmin):
    """What learners recorded is read, never written, in the admin."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Attempt)
class AttemptAdmin(RecordedAdmin):
    list_display = (
        "public_id",
        "quiz",
        "user",
        "language",
        "started_at",
        "completed_at",
        "score",
        "max_score",
    )
    list_filter = ("quiz", "language", ("completed_at", admin.EmptyFieldListFilter))
    list_select_related = ("quiz", "user")
    search_fields = ("public_id", "user__username", "quiz__slug")
    date_hierarchy = "started_at"


@admin.register(Answer)
class AnswerAdmin(RecordedAdmin):
    list_display = ("attempt", "question", "is_correct", "answered_at")
    list_filter = ("is_correct", "question__quiz")
    list_select_related = ("attempt", "question")
    search_fields = ("attempt__public_id",)
