"""The question admin, its choices inline; the Preview comes from quizzes/admin/previews.py."""

from adminsortable2.admin import SortableInlineAdminMixin
from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from modeltranslation.admin import TranslationAdmin, TranslationTabularInline

from quizzes.admin.common import (
    RecordedDeleteMixin,
    count,
    count_column,
    plain_column,
    regraded_message,
    side_by_side,
)
from quizzes.admin.embedding import QuestionEmbedMixin
from quizzes.admin.forms import (
    ChoiceForm,
    ChoiceInlineFormSet,
    QuestionForm,
    SortableInlineMixin,
    SortableParentMixin,
    UnitForm,
    UnitInlineFormSet,
)
from quizzes.admin.previews import QuestionPreviewMixin
from quizzes.learning.services import answers_regrade
from quizzes.models import (
    Answer,
    Choice,
    Question,
    Quiz,
    Unit,
)


class ChoiceInline(SortableInlineMixin, SortableInlineAdminMixin, TranslationTabularInline):
    model = Choice
    form = ChoiceForm
    formset = ChoiceInlineFormSet
    fields = (
        "position",
        "gap",
        "text",
        "match",
        "tolerance",
        "relative_tolerance",
        "is_correct",
        "credit",
        "feedback",
    )
    extra = 2
    # The text too is a box that wraps (a choice holds 500 characters).
    formfield_overrides = {
        models.TextField: {"widget": forms.Textarea(attrs={"rows": 2})},
        models.CharField: {"widget": forms.Textarea(attrs={"rows": 3})},
    }


class UnitInline(SortableInlineMixin, SortableInlineAdminMixin, admin.TabularInline):
    """A numerical question's units (Moodle's): the values are in the base unit."""

    model = Unit
    form = UnitForm
    formset = UnitInlineFormSet
    fields = ("position", "name", "multiplier")
    extra = 0


@admin.register(Question)
class QuestionAdmin(
    RecordedDeleteMixin,
    QuestionPreviewMixin,
    QuestionEmbedMixin,
    SortableParentMixin,
    TranslationAdmin,
):
    """Questions, their choices inline; the Preview of a question as learners read it comes
    from QuestionPreviewMixin (quizzes/admin/previews.py), its embed snippets from
    QuestionEmbedMixin (embedding.py)."""

    form = QuestionForm
    inlines = [ChoiceInline, UnitInline]
    change_form_template = "admin/quizzes/question/change_form.html"
    list_display = ("prompt_title", "quiz", "position", "kind", "choice_count", "answer_count")
    list_filter = ("quiz__guide_paths", "quiz__level", "quiz__is_published", "quiz")
    list_select_related = ("quiz",)
    search_fields = ("key", "name", *(f"prompt_{code}" for code, _name in settings.LANGUAGES))
    fields = side_by_side(
        "quiz",
        "position",
        "kind",
        "variables",
        "gaps",
        "keep_choice_order",
        "grading",
        "case_sensitive",
        "ignore_accents",
        "partial_credit",
        "units_required",
        "units_left",
        "prompt",
        "explanation",
        "guide_url",
        "key",
        "name",
        "embed_snippet",
    )
    readonly_fields = ("embed_snippet",)
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

    prompt_title = plain_column("prompt", _("prompt"))
    choice_count = count_column("choice_count", _("choices"))
    answer_count = count_column("answer_count", _("answers"))

    def recordedcount(self, question: Question) -> int:
        return question.answers.count()

    def quiz_of(self, question: Question) -> Quiz:
        return question.quiz

    def save_formset(self, request, form, formset, change):
        if formset.model is not Choice:  # The question's own changes are told once, here.
            super().save_formset(request, form, formset, change)
            return
        graded = {
            "is_correct",
            "tolerance",
            "relative_tolerance",
            "credit",
            "position",  # A numerical value's first match, an ordering's right order.
            *(f"text_{code}" for code, _name in settings.LANGUAGES),
        }
        if form.instance.type.by_picks:
            graded = {"is_correct", "credit"}
        if form.instance.type.fills_prompt:
            graded.add("gap")  # A choice moved to another gap.
        compared = {"case_sensitive", "ignore_accents"}  # How a short answer is matched.
        regrade_needed = change and (
            bool({"grading", "variables", "gaps"} & set(form.changed_data))
            or any(graded & set(choice_form.changed_data) for choice_form in formset.forms)
            or bool(compared & set(form.changed_data) and not form.instance.type.by_picks)
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
