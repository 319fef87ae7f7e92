"""The embed pages: a quiz, or one of its questions, in a frame on a guide's page. Start
posts to the learner's flow (quizzes/learning), whose pages then show in the frame under
the embed's URLconf (quizzes/embed/urlconf.py)."""

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe

from quizzes.embed.origins import posted_site, referring_site
from quizzes.learning.identity import learner_of
from quizzes.learning.parts import QuizIntro, kept
from quizzes.learning.selectors import NOT_STARTED, quiz_for_learner, quiz_statuses
from quizzes.learning.views.pages import attempt_started, start_limited
from quizzes.snapshots import QuestionContent, QuizContent

# How long browsers and proxies keep /embed.js's redirect to the script's hashed file: a
# new script reaches guides' readers within this time.
SCRIPT_MAX_AGE = 3600


def _published_quiz(slug: str) -> QuizContent:
    """The quiz if it is published: an embed shows no editor's preview."""
    quiz = quiz_for_learner(slug=slug, can_preview=False)
    if quiz is None:
        raise Http404(_("There is no quiz at this address."))
    return quiz


def _question(quiz: QuizContent, number: int) -> QuestionContent:
    if not 1 <= number <= len(quiz.questions):
        raise Http404(_("This quiz has no question %(number)s.") % {"number": number})
    return quiz.questions[number - 1]


@require_safe
def quiz(request: HttpRequest, slug: str) -> HttpResponse:
    """The quiz's title and facts, the learner's status at it, and Start or Resume."""
    quiz = _published_quiz(slug)
    status = quiz_statuses(learner=learner_of(request), quiz_ids=[quiz.pk]).get(
        quiz.pk, NOT_STARTED
    )
    context = {
        "quiz": quiz,
        "intro": kept(QuizIntro(language=request.LANGUAGE_CODE, quiz=quiz)),
        "status": status,
        "site": referring_site(request),
    }
    return render(request, "embed/quiz.html", context)


@require_POST
@start_limited
def start(request: HttpRequest, slug: str) -> HttpResponse:
    quiz = _published_quiz(slug)
    start_over = bool(request.POST.get("start_over"))
    return attempt_started(request, quiz, start_over=start_over, embedded_in=posted_site(request))


@require_safe
def question(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    """One question of the quiz on its own: its text, and Answer, which starts an attempt at
    that question alone."""
    quiz = _published_quiz(slug)
    context = {
        "quiz": quiz,
        "question": _question(quiz, number),
        "number": number,
        "site": referring_site(request),
    }
    return render(request, "embed/question.html", context)


@require_POST
@start_limited
def question_start(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    quiz = _published_quiz(slug)
    question = _question(quiz, number)
    return attempt_started(request, quiz, question=question, embedded_in=posted_site(request))


@require_safe
def connected(request: HttpRequest) -> HttpResponse:
    """Where "Connect your account" signs in to, in a window of its own: it says to go back to
    the guide, whose frame then picks the account up (static/embed/frame.js)."""
    return render(request, "embed/connected.html")


@require_safe
def script(request: HttpRequest) -> HttpResponse:
    """/embed.js, the address guides keep: the script's current (hashed) file."""
    response = redirect(static("embed/embed.js"))
    response["Cache-Control"] = f"public, max-age={SCRIPT_MAX_AGE}"
    response["Access-Control-Allow-Origin"] = "*"
    return response
