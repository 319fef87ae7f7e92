"""Publishing quizzes: the Publish and Unpublish actions of the quiz list, and the Unpublish
button of a quiz's change page (its own POST URL)."""

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from django.shortcuts import get_object_or_404, redirect
from django.urls import path
from django.utils.decorators import method_decorator
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from quizzes.models import Quiz


class QuizPublishingMixin:
    """For the quiz admin (a ModelAdmin of Quiz): name "publish" and "unpublish" in its
    `actions`. A quiz is published only when `Quiz.publish_problems` finds nothing."""

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
