"""The quiz admin: its list with counts and missing translations, its questions inline,
regrading; publishing, translations and import/export come from mixins."""

from adminsortable2.admin import SortableInlineAdminMixin
from django import forms
from django.conf import settings
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from modeltranslation.admin import TranslationAdmin, TranslationTabularInline

from quizzes.admin.common import (
    RecordedDeleteMixin,
    count,
    count_column,
    plain_column,
    regraded_message,
    side_by_side,
)
from quizzes.admin.embedding import QuizEmbedMixin
from quizzes.admin.embeds import EmbedOriginInline
from quizzes.admin.forms import (
    ContentForm,
    PositionForm,
    QuestionInlineFormSet,
    SortableInlineMixin,
    SortableParentMixin,
)
from quizzes.admin.publishing import QuizPublishingMixin
from quizzes.admin.translations import (
    MissingTranslationFilter,
    QuizTranslationStatusMixin,
    missing_column,
)
from quizzes.interchange.admin import QuizExportMixin, QuizImportMixin
from quizzes.learning.services import answers_regrade
from quizzes.models import Attempt, Question, Quiz, other_languages


class QuestionInline(SortableInlineMixin, SortableInlineAdminMixin, TranslationTabularInline):
    model = Question
    form = PositionForm
    formset = QuestionInlineFormSet
    fields = ("position", "prompt", "kind", "keep_choice_order")
    extra = 0
    show_change_link = True
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
    "category",
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


@admin.register(Quiz)
class QuizAdmin(
    RecordedDeleteMixin,
    QuizPublishingMixin,
    QuizTranslationStatusMixin,
    QuizEmbedMixin,
    QuizImportMixin,
    QuizExportMixin,
    SortableParentMixin,
    TranslationAdmin,
):
    """Quizzes, their questions inline. Each concern comes from a mixin: publishing
    (quizzes/admin/publishing.py), the translation status (translations.py), the embed
    snippets (embedding.py), the import pages and the export actions
    (quizzes/interchange/admin.py)."""

    form = QuizAdminForm
    inlines = [QuestionInline, EmbedOriginInline]
    list_display = (
        "name",
        "slug",
        "level",
        "is_published",
        "question_count",
        *(missing_column(code) for code in other_languages()),
        "attempt_count",
    )
    list_filter = ("guide_paths", "level", "is_published", MissingTranslationFilter)
    search_fields = ("slug", *(f"title_{code}" for code, _name in settings.LANGUAGES))
    prepopulated_fields = {"slug": (f"title_{settings.LANGUAGE_CODE}",)}
    # Ticked boxes, not Django's two-list widget: its search icon carries an aria-label no
    # role allows (axe), and a site has a few guide paths.
    formfield_overrides = {models.ManyToManyField: {"widget": forms.CheckboxSelectMultiple}}
    readonly_fields = ("translation_status", "embed_snippets")
    fields = side_by_side(*QUIZ_FIELDS, "translation_status", "embed_snippets")
    actions = ["publish", "unpublish", "regrade", "export", "export_gift", "export_moodle_xml"]
    change_list_template = "admin/quizzes/quiz/change_list.html"

    def get_queryset(self, request):
        queryset = super().get_queryset(request).with_missing_translations()
        return queryset.annotate(
            question_count=count(Question, "quiz"), attempt_count=count(Attempt, "quiz")
        )

    name = plain_column("title", _("title"))
    question_count = count_column("question_count", _("questions"))
    attempt_count = count_column("attempt_count", _("attempts"))

    def recordedcount(self, quiz: Quiz) -> int:
        return quiz.attempts.count()

    def quiz_of(self, quiz: Quiz) -> Quiz:
        return quiz

    @admin.action(description=_("Regrade answers"), permissions=["change"])
    def regrade(self, request, queryset):
        questions = Question.objects.filter(quiz__in=queryset.values("pk"))
        regraded_message(request, answers_regrade(questions=questions))
