"""The quiz admin: its list with counts and missing translations, publishing, regrading."""

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import models
from django.http import HttpRequest
from django.shortcuts import get_object_or_404, redirect
from django.urls import path
from django.utils.decorators import method_decorator
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST
from modeltranslation.admin import TabbedTranslationAdmin, TranslationTabularInline

from quizzes.admin.common import (
    RecordedDeleteMixin,
    count,
    count_column,
    language_name,
    regraded_message,
)
from quizzes.admin.forms import ContentForm, PositionForm, QuestionInlineFormSet
from quizzes.interchange.admin import QuizInterchangeMixin
from quizzes.learning.services import answers_regrade
from quizzes.models import (
    Attempt,
    Question,
    Quiz,
    other_languages,
)


class QuestionInline(TranslationTabularInline):
    model = Question
    form = PositionForm
    formset = QuestionInlineFormSet
    fields = ("position", "prompt", "kind")
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
        return [(code, language_name(code)) for code in other_languages()]

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

    column.short_description = language_name(language)
    column.admin_order_field = f"missing_{language}"
    column.__name__ = f"missing_{language}"
    return column


@admin.register(Quiz)
class QuizAdmin(RecordedDeleteMixin, QuizInterchangeMixin, TabbedTranslationAdmin):
    """Quizzes, their questions inline; importing and exporting come from QuizInterchangeMixin."""

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
            question_count=count(Question, "quiz"), attempt_count=count(Attempt, "quiz")
        )

    question_count = count_column("question_count", _("questions"))
    attempt_count = count_column("attempt_count", _("attempts"))

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
                ) % {"language": language_name(code), "count": len(missing)}
                items = format_html_join("", "<li>{}</li>", ((place,) for place in missing))
                rows.append(format_html("<p>{}</p><ul>{}</ul>", summary, items))
            else:
                rows.append(
                    format_html(
                        "<p>{}</p>",
                        gettext("%(language)s: complete") % {"language": language_name(code)},
                    )
                )
        return format_html_join("", "{}", ((row,) for row in rows))

    def recordedcount(self, quiz: Quiz) -> int:
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
        regraded_message(request, answers_regrade(questions=questions))

    def get_urls(self):
        return [
            path(
                "<int:object_id>/unpublish/",
                self.admin_site.admin_view(self.unpublish_view),
                name="quizzes_quiz_unpublish",
            ),
            *super().get_urls(),
        ]

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
