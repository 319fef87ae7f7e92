"""What the admins of quizzes, questions and images share: counts in list columns, language
names, the regrade message and the delete page of content learners answered."""

from django.conf import settings
from django.contrib import admin, messages
from django.db.models import Count, IntegerField, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.utils.translation import gettext

from quizzes.models import (
    ContentImage,
    Question,
    Quiz,
    translated_fields,
)

TRANSLATED = {
    field for model in (Quiz, Question, ContentImage) for field in translated_fields(model)
}


def count(model, field: str):
    """Count related rows in a subquery, so that several counts don't multiply each other."""
    rows = (
        model.objects.filter(**{field: OuterRef("pk")})
        .order_by()
        .values(field)
        .annotate(n=Count("pk"))
        .values("n")
    )
    return Coalesce(Subquery(rows, output_field=IntegerField()), 0)


def count_column(annotation: str, description: str):
    """A list column showing the count `get_queryset` annotated, sortable by it."""

    @admin.display(description=description, ordering=annotation)
    def column(self, obj) -> int:
        return getattr(obj, annotation)

    return column


def plain_column(field: str, description: str):
    """A list column naming the row as its `__str__` does (the text's first line, Markdown
    stripped), sortable by `field`."""

    @admin.display(description=description, ordering=field)
    def column(self, obj) -> str:
        return str(obj)

    return column


def side_by_side(*fields: str) -> tuple:
    """Admin `fields` with each translated field's languages on one line, side by side
    (English, then French), for the fields named in the model's translation options; other
    names pass through."""
    return tuple(
        tuple(f"{field}_{code}" for code, _name in settings.LANGUAGES)
        if field in TRANSLATED
        else field
        for field in fields
    )


def language_name(code: str) -> str:
    return dict(settings.LANGUAGES)[code]


def regraded_message(request: HttpRequest, regraded) -> None:
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

    def recordedcount(self, obj) -> int:
        raise NotImplementedError

    def quiz_of(self, obj) -> Quiz:
        raise NotImplementedError

    def delete_view(self, request, object_id, extra_context=None):
        obj = self.get_object(request, object_id)
        if obj is not None and self.has_delete_permission(request, obj):
            count = self.recordedcount(obj)
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
