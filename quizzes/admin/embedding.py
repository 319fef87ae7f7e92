"""What the quiz and question admins show an editor to embed a quiz, or one question, in a
guide's page: the snippets of quizzes/embed/snippets.py in every language, each in a box to
copy (a button does it with the script, quizsite/static/quizsite/admin-copy.js), and the
sites allowed to embed it (EmbedOrigin)."""

from django import forms
from django.contrib import admin
from django.db.models import Q
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.safestring import SafeString
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from quizzes.embed.snippets import site_url, snippets
from quizzes.models import EmbedOrigin, Question, Quiz

TEMPLATE = "admin/quizzes/_embed_snippets.html"


def copy_script() -> forms.Script:
    """The copy buttons, their texts in the editor's language."""
    return forms.Script(
        "quizsite/admin-copy.js",
        **{"data-copy": gettext("Copy"), "data-copied": gettext("Copied to the clipboard.")},
    )


class _CopyMediaMixin:
    @property
    def media(self):
        return super().media + forms.Media(js=[copy_script()])


def _shown(quiz: Quiz, *, prefix: str, number: int | None = None) -> SafeString:
    """The snippets of a published quiz (or of its question `number`), and the sites
    allowed to embed it (one query), with the way to the allowed origins."""
    published = quiz.is_published
    return render_to_string(
        TEMPLATE,
        {
            "published": published,
            "prefix": prefix,
            "snippets": snippets(quiz=quiz, number=number) if published else (),
            "oembed_url": site_url(quiz.get_absolute_url()) if number is None else "",
            "origins": EmbedOrigin.objects.for_quiz(Q(quiz=quiz)),
            "origins_url": reverse("admin:quizzes_embedorigin_changelist"),
        },
    )


class QuizEmbedMixin(_CopyMediaMixin):
    """For the quiz admin: name "embed_snippets" in its `readonly_fields` and `fields`."""

    @admin.display(description=_("embed in a guide"))
    def embed_snippets(self, quiz: Quiz) -> SafeString | str:
        if quiz.pk is None:
            return "-"
        return _shown(quiz, prefix="quiz")


class QuestionEmbedMixin(_CopyMediaMixin):
    """For the question admin: name "embed_snippet" in its `readonly_fields` and `fields`."""

    @admin.display(description=_("embed in a guide"))
    def embed_snippet(self, question: Question) -> SafeString | str:
        if question.pk is None:
            return "-"
        quiz = question.quiz
        number = None
        if quiz.is_published:  # Its number on the embed pages: its place in the quiz, from 1.
            number = quiz.questions.filter(position__lt=question.position).count() + 1
        return _shown(quiz, prefix="question", number=number)
