"""The learner's pages: home, a quiz, its questions one at a time, the results."""

import hashlib
from collections.abc import Callable
from dataclasses import replace
from uuid import UUID

from django.contrib.messages import get_messages
from django.core.cache import cache, caches
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import get_token
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils.cache import patch_vary_headers
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from quizzes.learning.forms import AnswerForm
from quizzes.learning.identity import (
    has_attempts,
    keep_learner_key,
    learner_of,
    new_learner_key,
    note_attempts,
)
from quizzes.learning.selectors import (
    NOT_STARTED,
    Learner,
    LearnerAttempt,
    PastAttempt,
    Recorded,
    Step,
    attempt_for_learner,
    attempt_steps,
    catalogue,
    learner_progress,
    quiz_for_learner,
    quiz_statuses,
)
from quizzes.learning.services import (
    AlreadyAnswered,
    AttemptClosed,
    NotFinished,
    NothingMissed,
    NotOpenYet,
    answer_record,
    attempt_start,
    practice_start,
)
from quizzes.models import Attempt, AttemptKind
from quizzes.snapshots import ChoiceContent, QuestionContent, QuizContent


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    listing = catalogue()
    guides, unlinked = list(listing.guide_paths), list(listing.unlinked_quizzes)
    quiz_ids = [quiz.pk for guide in guides for quiz in guide.published_quizzes]
    statuses = quiz_statuses(
        learner=learner_of(request), quiz_ids=quiz_ids + [quiz.pk for quiz in unlinked]
    )
    context = {"guides": guides, "unlinked_quizzes": unlinked, "statuses": statuses}
    return render(request, "quizzes/home.html", context)


@require_safe
def progress(request: HttpRequest) -> HttpResponse:
    """My progress: every guide path and quiz, where the learner is with each."""
    found = learner_progress(learner=learner_of(request))
    return render(request, "quizzes/progress.html", {"progress": found})


def _get_published_quiz(request: HttpRequest, slug: str) -> QuizContent:
    """The quiz if learners may see it (editors also preview unpublished ones)."""
    quiz = quiz_for_learner(slug=slug, can_preview=request.user.has_perm("quizzes.change_quiz"))
    if quiz is None:
        raise Http404(_("There is no quiz at this address."))
    return quiz


@require_safe
def quiz_detail(request: HttpRequest, slug: str) -> HttpResponse:
    """The quiz, its facts and its questions' preview, the learner's status at it, and Start
    or Resume: each part kept, as the same for every learner who sees the same. So is the
    whole page for anonymous learners but for the status and Start (all they see of theirs),
    when they have no message to see."""
    quiz = _get_published_quiz(request, slug)
    status = quiz_statuses(learner=learner_of(request), quiz_ids=[quiz.pk]).get(
        quiz.pk, NOT_STARTED
    )
    content = {"quiz": quiz, "questions": quiz.questions, "guides": quiz.guide_paths}
    shown = _quiz_shown(quiz)
    in_progress = status.in_progress
    status_shown = (status.state, status.passed, status.best, status.last)
    status_shown += (in_progress and in_progress.next_number,)
    status_shown += (in_progress and in_progress.question_count,)
    actions = _kept(
        "quiz-actions",
        shown + status_shown,
        "quizzes/_quiz_actions.html",
        lambda: content | {"status": status},
        attempt=in_progress,
        token=get_token(request),
    )

    def context() -> dict:  # Only needed when the whole page is not kept.
        return content | {
            "intro": _kept("quiz-intro", shown, "quizzes/_quiz_intro.html", lambda: content),
            "preview": _kept("quiz-preview", shown, "quizzes/_quiz_preview.html", lambda: content),
        }

    if request.user.is_authenticated or get_messages(request) or request.GET:
        return render(request, "quizzes/quiz_detail.html", context() | {"actions": actions})
    # The page as every anonymous learner asking for this address sees it: its language
    # links and sign-in's way back show the address, its header whether they have attempts.
    # (Not for an address with a query, which anyone can vary.)
    address = (request.build_absolute_uri(), has_attempts(request))
    page = _kept(
        "quiz-page",
        shown + address,
        "quizzes/quiz_detail.html",
        lambda: context() | {"actions": _ACTIONS_MARK},
        request=request,
    )
    return HttpResponse(page.replace(_ACTIONS_MARK, actions))


@require_POST
def quiz_start(request: HttpRequest, slug: str) -> HttpResponse:
    """Start the quiz, or resume the attempt in progress; "Start over" abandons that one."""
    quiz = _get_published_quiz(request, slug)
    if not quiz.questions:
        raise Http404(_("This quiz has no questions yet."))
    start_over = bool(request.POST.get("start_over"))
    kind = AttemptKind.QUIZ if quiz.is_published else AttemptKind.PREVIEW
    if request.user.is_authenticated:
        attempt = attempt_start(quiz=quiz, user=request.user, kind=kind, start_over=start_over)
        note_attempts(request)
        return _started(request, attempt, Learner(user_id=request.user.pk, key=None))
    key = learner_of(request).key or new_learner_key()
    attempt = attempt_start(quiz=quiz, user=None, learner_key=key, kind=kind, start_over=start_over)
    response = _started(request, attempt, Learner(user_id=None, key=key))
    keep_learner_key(response, key)  # Again, so that it lasts from the latest start.
    return response


def _started(request: HttpRequest, attempt: Attempt, learner: Learner) -> HttpResponse:
    """On to the attempt's first open question: its page (which tells which that is), or for
    the page's script that question's part, as an answer's reply gives the next one."""
    if not _wants_json(request):
        return redirect(attempt.question_url(1))
    found = attempt_for_learner(public_id=attempt.public_id, learner=learner)
    if found is None or found.first_open is None:  # Gone or full since: the page tells.
        return redirect(attempt.question_url(1))
    return _json_reply(next=_question_json(found, found.steps[found.first_open - 1]))


def _wants_json(request: HttpRequest) -> bool:
    """Whether the page's script asks (a form's POST, or an Accept header it can't read, gets
    the pages)."""
    return request.get_preferred_type(["text/html", "application/json"]) == "application/json"


def _get_attempt_for(request: HttpRequest, public_id: UUID) -> LearnerAttempt:
    found = attempt_for_learner(public_id=public_id, learner=learner_of(request))
    if found is None:
        raise Http404(_("There is no such attempt, or it is not yours."))
    return found


def _ordered_choices(found: LearnerAttempt, question: QuestionContent) -> list[ChoiceContent]:
    choices = list(question.choices)
    if found.quiz.shuffle_choices:
        choices.sort(key=found.attempt.choice_order_key)
    return choices


def _review(choices: list[ChoiceContent], recorded: Recorded | None) -> dict:
    """What templates/quizzes/_answer_review.html shows of an answer, besides the question."""
    return {
        "picked": [choice for choice in choices if recorded and choice.pk in recorded.picked],
        "picked_key": recorded.key if recorded else "",
        "correct_choices": [choice for choice in choices if choice.is_correct],
        "is_correct": recorded is not None and recorded.is_correct,
    }


def _choice_order(found: LearnerAttempt) -> str:
    """What the order of the choices on a page depends on, for the pages' fragment caches."""
    return str(found.attempt.public_id) if found.quiz.shuffle_choices else ""


@require_http_methods(["GET", "HEAD", "POST"])
def question(request: HttpRequest, public_id: UUID, number: int) -> HttpResponse:
    found = _get_attempt_for(request, public_id)
    if not 1 <= number <= len(found.steps):
        raise Http404(_("This quiz has no question %(number)s.") % {"number": number})
    if request.method == "POST":
        return _answer(request, found, found.steps[number - 1])
    first_open = found.first_open
    if first_open is not None and number > first_open:
        return redirect(found.attempt.question_url(first_open))
    return _question_page(request, found, found.steps[number - 1])


def _answer(request: HttpRequest, found: LearnerAttempt, step: Step) -> HttpResponse:
    """Record the posted answer and show its feedback (POST/redirect/GET; for the page's
    script, the feedback and what follows it in one response), or say why not."""
    choices = _ordered_choices(found, step.question)
    form = AnswerForm(request.POST, choices=choices, kind=step.question.type)
    if form.is_valid():  # The service tells whether it is this question's turn.
        picks = form.cleaned_data["choices"]
        try:
            answer = answer_record(
                attempt=found.attempt, quiz=found.quiz, question=step.question, choices=picks
            )
        except NotOpenYet as refusal:
            return _out_of_order(request, found, refusal.first_open)
        except AttemptClosed:
            return _question_page(request, found, step, status=409)
        except AlreadyAnswered:  # In another tab, since this request read the answers.
            found = replace(found, steps=attempt_steps(attempt=found.attempt, quiz=found.quiz))
            step = found.steps[step.number - 1]
        else:
            if not _wants_json(request):
                return redirect(found.attempt.question_url(step.number) + "#feedback")
            recorded = Recorded(answer.is_correct, frozenset(choice.pk for choice in picks))
            steps = list(found.steps)
            steps[step.number - 1] = replace(step, recorded=recorded)
            return _steps_json(replace(found, steps=tuple(steps)), step.number)
    first_open = found.first_open
    if first_open is not None and step.number > first_open:
        return _out_of_order(request, found, first_open)
    if step.recorded is not None:
        notice = _("You have already answered this question.")
        return _question_page(request, found, step, status=409, notice=notice)
    return _question_page(request, found, step, form=form, status=400)


def _steps_json(found: LearnerAttempt, number: int) -> JsonResponse:
    """For the quiz's script (quizzes/learning/static/quizzes/step.js): question `number`'s feedback
    and what follows it, the next question or after the last one the results."""
    feedback = _question_json(found, found.steps[number - 1])
    if number < len(found.steps):
        return _json_reply(feedback=feedback, next=_question_json(found, found.steps[number]))
    return _json_reply(feedback=feedback, next=_results_json(found))


def _json_reply(**parts: dict) -> JsonResponse:
    response = JsonResponse(parts)
    patch_vary_headers(response, ["Accept"])
    return response


# A page for the script, as its address, its title and its step part: the same HTML as the
# full page shows in its <div id="step-page">. The parts' forms carry no CSRF token: the
# script gives them the page's, which keeps the token out of every reply (and spares
# masking a new one).


def _question_json(found: LearnerAttempt, step: Step) -> dict:
    return {
        "url": found.attempt.question_url(step.number),
        "title": f"{_step_title(found, step)} · {found.quiz.title} · Quizsite",
        "main": _step_part(found, step, token=""),
    }


def _results_json(found: LearnerAttempt) -> dict:
    return {
        "url": found.attempt.get_absolute_url(),
        "title": f"{_results_title(found)} · {found.quiz.title} · Quizsite",
        "main": _results_part(found, token="", mistakes_only=False),
    }


def _out_of_order(request: HttpRequest, found: LearnerAttempt, first_open: int) -> HttpResponse:
    context = {"attempt": found.attempt, "first_open": first_open}
    return render(request, "quizzes/out_of_order.html", context, status=409)


def _question_page(
    request: HttpRequest,
    found: LearnerAttempt,
    step: Step,
    *,
    form: AnswerForm | None = None,
    status: int = 200,
    notice: str | None = None,
) -> HttpResponse:
    """Question `step` open, or with its feedback once answered. `form` is a refused
    answer's, for its error."""
    context = {
        "quiz": found.quiz,
        "step_title": _step_title(found, step),
        "step_part": _step_part(found, step, token=get_token(request), form=form, notice=notice),
    }
    return render(request, "quizzes/question.html", context, status=status)


def _step_title(found: LearnerAttempt, step: Step) -> str:
    return _("Question %(number)s of %(total)s") % {
        "number": step.number,
        "total": len(found.steps),
    }


# Stand for the attempt's id and the CSRF token in a kept part: nothing else in it differs
# between two learners who see the same of the same quiz. The quiz page kept for anonymous
# learners has a mark where their status and Start go.
_ATTEMPT_MARK, _TOKEN_MARK = "\x00attempt\x00", "\x00token\x00"
_ACTIONS_MARK = mark_safe("\x00actions\x00")


def _kept(
    name: str,
    shown: tuple,
    template: str,
    context: Callable[[], dict],
    *,
    attempt: Attempt | PastAttempt | None = None,
    token: str = "",
    request: HttpRequest | None = None,
) -> SafeString:
    """`template` rendered with `context()`, kept in the per-process cache under `shown`,
    which must hold all that the template shows (the quiz's stamp first) but `attempt`'s id
    and the CSRF token `token`, filled in: the same for every learner who sees the same.
    With `request`, a whole page, with what the context processors give (in `shown` too),
    kept in the small cache for pages (settings.CACHES)."""
    key = f"{name}:" + ":".join(map(str, shown))
    kept_in = caches["pages"] if request is not None else cache
    if (html := kept_in.get(key)) is None:
        html = _marked(template, context(), attempt, request)
        kept_in.set(key, html, 3600)
    return _filled(html, attempt, token)


def _marked(
    template: str,
    context: dict,
    attempt: Attempt | PastAttempt | None,
    request: HttpRequest | None = None,
) -> str:
    context = context | {"csrf_token": _TOKEN_MARK, "LANGUAGE_CODE": get_language()}
    html = render_to_string(template, context, request=request)
    return html.replace(str(attempt.public_id), _ATTEMPT_MARK) if attempt else html


def _filled(html: str, attempt: Attempt | None, token: str) -> SafeString:
    if attempt is not None:
        html = html.replace(_ATTEMPT_MARK, str(attempt.public_id))
    return mark_safe(html.replace(_TOKEN_MARK, token))


def _quiz_shown(quiz: QuizContent) -> tuple:
    """What every kept part of a quiz's pages shows: the quiz as it is now, in the language
    of the page."""
    return (quiz.pk, quiz.updated_at.isoformat(), get_language())


def _content_shown(found: LearnerAttempt) -> tuple:
    """What every kept part of an attempt's pages shows: its quiz, its choices in the
    attempt's order."""
    return _quiz_shown(found.quiz) + (_choice_order(found),)


def _step_part(
    found: LearnerAttempt,
    step: Step,
    *,
    token: str,
    form: AnswerForm | None = None,
    notice: str | None = None,
) -> SafeString:
    """templates/quizzes/_step.html for question `step`: its form, or its feedback once
    answered. Kept under everything it shows; a refused answer's part is made anew."""
    recorded = step.recorded
    total = len(found.steps)

    def context() -> dict:
        choices = _ordered_choices(found, step.question)
        return {
            "attempt": found.attempt,
            "quiz": found.quiz,
            "question": step.question,
            "choices": choices,
            "form": form,
            "number": step.number,
            "total": total,
            "step_title": _step_title(found, step),
            "answered_count": found.answered_count,
            "answered": recorded is not None,
            "closed": found.closed_reason,
            **_review(choices, recorded),
            "choice_order": _choice_order(found),
            "next_url": found.attempt.question_url(step.number + 1)
            if step.number < total
            else found.attempt.get_absolute_url(),
            "notice": notice,
        }

    attempt = found.attempt
    if form is not None or notice is not None:
        return _filled(_marked("quizzes/_step.html", context(), attempt), attempt, token)
    shown = _content_shown(found) + (attempt.kind, found.closed_reason, step.number, total)
    shown += (found.answered_count, recorded and recorded.key, recorded and recorded.is_correct)
    return _kept("step-part", shown, "quizzes/_step.html", context, attempt=attempt, token=token)


@require_safe
def results(request: HttpRequest, public_id: UUID) -> HttpResponse:
    """Score, a line per question, and the reviews: all, or only the mistakes (?mistakes=1)."""
    found = _get_attempt_for(request, public_id)
    if not found.attempt.is_finished:
        return redirect(found.attempt.question_url(found.first_open or 1))
    mistakes_only = request.GET.get("mistakes") == "1"
    context = {
        "quiz": found.quiz,
        "title": _results_title(found),
        "results_part": _results_part(found, token=get_token(request), mistakes_only=mistakes_only),
    }
    return render(request, "quizzes/results.html", context)


def _results_title(found: LearnerAttempt) -> str:
    if found.attempt.kind == AttemptKind.PRACTICE:
        return _("Your practice results")
    return _("Your results")


def _results_part(found: LearnerAttempt, *, token: str, mistakes_only: bool) -> SafeString:
    """templates/quizzes/_results.html, kept under the answers it shows; so are its line per
    question and each review, under the answer each shows, for the results they are in."""
    answers = [(step.question.pk, step.recorded and step.recorded.key) for step in found.steps]
    answers += [step.recorded and step.recorded.is_correct for step in found.steps]
    digest = hashlib.blake2b(repr(answers).encode(), digest_size=16).hexdigest()
    attempt = found.attempt
    shown = _content_shown(found) + (attempt.kind, attempt.score, attempt.max_score)
    shown += (mistakes_only, digest)

    def context() -> dict:
        summary, review, mistakes = [], [], 0
        for step in found.steps:
            choices = _ordered_choices(found, step.question)
            item = {"number": step.number, "question": step.question, "choices": choices}
            item |= _review(choices, step.recorded)
            mistakes += not item["is_correct"]
            line = _content_shown(found) + (step.number, step.question.pk, item["picked_key"])
            line += (item["is_correct"], mistakes_only)

            def item_of(item=item) -> dict:
                return {
                    "item": item,
                    "quiz": found.quiz,
                    "mistakes_only": mistakes_only,
                    "choice_order": _choice_order(found),
                }

            summary.append(_kept("summary-item", line, "quizzes/_summary_item.html", item_of))
            if not (mistakes_only and item["is_correct"]):
                review.append(_kept("review-item", line, "quizzes/_review_item.html", item_of))
        return {
            "attempt": attempt,
            "quiz": found.quiz,
            "passed": found.passed,
            "summary": summary,
            "review": review,
            "mistakes": mistakes,
            "mistakes_only": mistakes_only,
            "guides": found.quiz.guide_paths,
        }

    return _kept("results", shown, "quizzes/_results.html", context, attempt=attempt, token=token)


@require_POST
def practice(request: HttpRequest, public_id: UUID) -> HttpResponse:
    """Practise the questions missed in a finished attempt of the learner's."""
    found = _get_attempt_for(request, public_id)
    user = request.user if request.user.is_authenticated else None
    try:
        attempt = practice_start(
            attempt=found.attempt,
            quiz=found.quiz,
            user=user,
            learner_key=learner_of(request).key or "",
        )
    except NotFinished:
        context = {"attempt": found.attempt, "quiz": found.quiz, "reason": "unfinished"}
        return render(request, "quizzes/practice_refused.html", context, status=409)
    except NothingMissed:
        context = {"attempt": found.attempt, "quiz": found.quiz, "reason": "nothing_missed"}
        return render(request, "quizzes/practice_refused.html", context)
    return redirect(attempt.question_url(1))
