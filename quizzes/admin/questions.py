"""The question admin, its choices inline, with a Preview of the question as learners read it."""

from collections.abc import Callable
from dataclasses import dataclass

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from modeltranslation.admin import TabbedTranslationAdmin, TranslationTabularInline

from quizzes.admin.common import (
    RecordedDeleteMixin,
    count,
    count_column,
    language_name,
    regraded_message,
)
from quizzes.admin.forms import ChoiceInlineFormSet, ContentForm, PositionForm
from quizzes.learning.services import answers_regrade
from quizzes.markup.rendering import Rendered, render
from quizzes.models import (
    Answer,
    Choice,
    Question,
    Quiz,
)


class ChoiceInline(TranslationTabularInline):
    model = Choice
    form = PositionForm
    formset = ChoiceInlineFormSet
    fields = ("position", "text", "is_correct", "feedback")
    extra = 2
    formfield_overrides = {models.TextField: {"widget": forms.Textarea(attrs={"rows": 2})}}


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
        name=language_name(code),
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
                choice_count=count(Choice, "question"), answer_count=count(Answer, "question")
            )
        )

    choice_count = count_column("choice_count", _("choices"))
    answer_count = count_column("answer_count", _("answers"))

    def recordedcount(self, question: Question) -> int:
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
        regraded_message(request, answers_regrade(questions=queryset))
