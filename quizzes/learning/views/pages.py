"""The learner's pages: home, a quiz, its questions one at a time, the results."""

from dataclasses import replace
from decimal import Decimal
from uuid import UUID

from django.contrib.auth.decorators import login_required
from django.contrib.messages import get_messages
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import get_token
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import patch_vary_headers
from django.utils.safestring import SafeString
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from quizsite.ratelimit import ratelimit
from quizzes.learning.forms import AnswerForm
from quizzes.learning.identity import (
    keep_learner_key,
    learner_of,
    learner_or_address,
    new_learner_key,
    note_attempts,
)
from quizzes.learning.parts import (
    ACTIONS_MARK,
    ATTEMPT_ID,
    AnswerReview,
    QuizActions,
    QuizIntro,
    QuizPage,
    QuizPreview,
    ResultsPart,
    ReviewItem,
    ScoredAttempt,
    StatusShown,
    StepPart,
    SummaryItem,
    kept,
    made,
)
from quizzes.learning.selectors import (
    NOT_STARTED,
    Learner,
    LearnerAttempt,
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
    AssignmentRefused,
    AttemptClosed,
    NotFinished,
    NothingMissed,
    NotOpenYet,
    NotPublished,
    TimeUp,
    answer_record,
    assignment_attempt_start,
    attempt_start,
    attempt_submit_overdue,
    practice_start,
    question_attempt_start,
)
from quizzes.models import Assignment, Attempt, AttemptKind
from quizzes.snapshots import ChoiceContent, QuestionContent, QuizContent
from quizzes.templatetags.embedding import embedded


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
    if request.user.is_authenticated:
        # Joining a class leads here, before any attempt: the header keeps the way back.
        note_attempts(request)
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
    language, in_progress = get_language(), status.in_progress
    actions = kept(
        QuizActions(language=language, quiz=quiz, status=StatusShown.of(status)),
        attempt_id=in_progress and in_progress.public_id,
        token=get_token(request),
    )
    parts = {  # Rendered (or taken from the cache) only if the whole page is not kept.
        "quiz": quiz,
        "intro": QuizIntro(language=language, quiz=quiz),
        "preview": QuizPreview(language=language, quiz=quiz),
    }
    if request.user.is_authenticated or get_messages(request) or request.GET:
        page = QuizPage.of(request, language=language, actions=actions, **parts)
        return HttpResponse(made(page, token=get_token(request)))
    # The page as every anonymous learner asking for this address sees it (its language
    # links and sign-in's way back show the address, its header whether they have
    # attempts), but for their status and Start. (Not for an address with a query, which
    # anyone can vary.)
    page = QuizPage.of(request, language=language, actions=ACTIONS_MARK, **parts)
    return HttpResponse(kept(page).replace(ACTIONS_MARK, actions))


@require_safe
def quiz_start_over(request: HttpRequest, slug: str) -> HttpResponse:
    """Ask before "Start over" leaves the attempt in progress: its form posts to Start,
    without the page's script, so that nothing is abandoned unasked; with no attempt in
    progress, back to the quiz."""
    quiz = _get_published_quiz(request, slug)
    status = quiz_statuses(learner=learner_of(request), quiz_ids=[quiz.pk]).get(
        quiz.pk, NOT_STARTED
    )
    if status.in_progress is None:
        return redirect(quiz.get_absolute_url())
    return render(
        request, "quizzes/start_over.html", {"quiz": quiz, "in_progress": status.in_progress}
    )


# Each Start, Start over and practice may write an attempt: a learner, and an address (a
# classroom behind one is many learners), starts so many an hour, then gets the 429 page.
_per_address = ratelimit("starts", limit="ATTEMPT_STARTS_PER_ADDRESS_PER_HOUR", per=3600)
_per_learner = ratelimit(
    "learner-starts", limit="ATTEMPT_STARTS_PER_LEARNER_PER_HOUR", per=3600, by=learner_or_address
)


def start_limited(view):
    """`view` under the limits of Start: so many an hour per address and per learner."""
    return _per_address(_per_learner(view))


@require_POST
@start_limited
def quiz_start(request: HttpRequest, slug: str) -> HttpResponse:
    """Start the quiz, or resume the attempt in progress; "Start over" abandons that one."""
    quiz = _get_published_quiz(request, slug)
    return attempt_started(request, quiz, start_over=bool(request.POST.get("start_over")))


def attempt_started(
    request: HttpRequest,
    quiz: QuizContent,
    *,
    start_over: bool = False,
    question: QuestionContent | None = None,
    embedded_in: int | None = None,
) -> HttpResponse:
    """Start the learner's attempt at the quiz, or at its one `question`, or resume the one in
    progress, and go on to its first open question. `embedded_in`: the allowed origin whose
    page frames the Start (quizzes/embed), kept on a new attempt."""
    if not quiz.questions:
        raise Http404(_("This quiz has no questions yet."))
    user = request.user if request.user.is_authenticated else None
    key = None if user is not None else learner_of(request).key or new_learner_key()
    if question is not None:
        attempt = question_attempt_start(
            quiz=quiz, question=question, user=user, learner_key=key or "", embedded_in=embedded_in
        )
    else:
        kind = AttemptKind.QUIZ if quiz.is_published else AttemptKind.PREVIEW
        attempt = attempt_start(
            quiz=quiz,
            user=user,
            learner_key=key or "",
            kind=kind,
            start_over=start_over,
            embedded_in=embedded_in,
        )
    if user is not None:
        note_attempts(request)
        return _started(request, attempt, Learner(user_id=user.pk, key=None))
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


@require_POST
@login_required
@start_limited
def assignment_start(request: HttpRequest, assignment_id: int) -> HttpResponse:
    """Start an attempt at a class's assignment under its rules, or resume the one in
    progress; refused with a page that says why (not in the class, not open, closed, no
    attempts left)."""
    assignment = get_object_or_404(Assignment.objects.select_related("quiz"), pk=assignment_id)
    try:
        attempt = assignment_attempt_start(assignment=assignment, user=request.user)
    except AssignmentRefused as refusal:
        context = {"assignment": assignment, "reason": refusal.reason}
        return render(request, "quizzes/assignment_refused.html", context, status=403)
    note_attempts(request)
    found = _get_attempt_for(request, attempt.public_id)
    return redirect(attempt.question_url(found.first_open or 1))


def _get_attempt_for(request: HttpRequest, public_id: UUID) -> LearnerAttempt:
    found = attempt_for_learner(public_id=public_id, learner=learner_of(request))
    if found is None:
        raise Http404(_("There is no such attempt, or it is not yours."))
    return found


def _picked(
    choices: tuple[ChoiceContent, ...], recorded: Recorded | None
) -> tuple[ChoiceContent, ...]:
    return tuple(choice for choice in choices if recorded and choice.pk in recorded.picked)


@require_http_methods(["GET", "HEAD", "POST"])
def question(request: HttpRequest, public_id: UUID, number: int) -> HttpResponse:
    found = _get_attempt_for(request, public_id)
    if not 1 <= number <= len(found.steps):
        raise Http404(_("This quiz has no question %(number)s.") % {"number": number})
    if request.method == "POST":
        return _answer(request, found, found.steps[number - 1])
    if found.is_overdue(timezone.now()):  # Its time ran out while the learner was away.
        attempt_submit_overdue(attempt=found.attempt)
        return redirect(found.attempt.get_absolute_url())
    first_open = found.first_open
    if first_open is not None and number > first_open:
        return redirect(found.attempt.question_url(first_open))
    return _question_page(request, found, found.steps[number - 1])


def _answer(request: HttpRequest, found: LearnerAttempt, step: Step) -> HttpResponse:
    """Record the posted answer and show its feedback (POST/redirect/GET; for the page's
    script, the feedback and what follows it in one response), or say why not."""
    choices = found.choices_of(step.question)
    form = AnswerForm(
        request.POST, choices=choices, kind=step.question.type, question=step.question
    )
    if form.is_valid():  # The service tells whether it is this question's turn.
        picks, response = form.cleaned_data["choices"], form.cleaned_data["response"]
        try:
            answer = answer_record(
                attempt=found.attempt,
                quiz=found.quiz,
                question=step.question,
                choices=picks,
                response=response,
            )
        except NotOpenYet as refusal:
            return _out_of_order(request, found, refusal.first_open)
        except AttemptClosed:
            return _question_page(request, found, step, status=409)
        except TimeUp:  # Not recorded; the attempt is submitted as it stood at its deadline.
            if not _wants_json(request):
                return redirect(found.attempt.get_absolute_url())
            found = _get_attempt_for(request, found.attempt.public_id)
            return _json_reply(next=_results_json(found))
        except AlreadyAnswered:  # In another tab, since this request read the answers.
            found = replace(found, steps=attempt_steps(attempt=found.attempt, quiz=found.quiz))
            step = found.steps[step.number - 1]
        else:
            if not _wants_json(request):
                return redirect(found.attempt.question_url(step.number) + "#feedback")
            picked = frozenset(choice.pk for choice in picks)
            recorded = Recorded(answer.credit, picked, response)
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
    deadline = found.attempt.deadline
    if deadline is not None and found.attempt.is_open:
        # The time left by the server's clock: the page's script counts it down on the
        # browser's monotonic clock, so a clock set back in the browser changes nothing.
        left = max(0, int((deadline - timezone.now()).total_seconds()))
        context |= {"attempt": found.attempt, "deadline": deadline, "seconds_left": left}
    return render(request, "quizzes/question.html", context, status=status)


def _step_title(found: LearnerAttempt, step: Step) -> str:
    return _("Question %(number)s of %(total)s") % {
        "number": step.number,
        "total": len(found.steps),
    }


def _step_part(
    found: LearnerAttempt,
    step: Step,
    *,
    token: str,
    form: AnswerForm | None = None,
    notice: str | None = None,
) -> SafeString:
    """templates/quizzes/_step.html for question `step`: its form, or its feedback once
    answered. Kept (quizzes/learning/parts.py); a refused answer's part is made anew."""
    recorded, total = step.recorded, len(found.steps)
    language = get_language()
    shows_form = recorded is None and found.closed_reason is None
    part = StepPart(
        language=language,
        quiz=found.quiz,
        attempt_kind=found.attempt.kind,
        step_title=_step_title(found, step),
        number=step.number,
        total=total,
        answered_count=found.answered_count,
        question=step.question,
        choices=found.choices_of(step.question) if shows_form else (),
        answered=recorded is not None,
        review=_answer_review(found, step, language) if recorded is not None else None,
        is_correct=recorded is not None and recorded.is_correct,
        credit=recorded.credit if recorded is not None else Decimal(0),
        closed=found.closed_reason,
        review_later=_review_later(found),
        next_url=_question_url(step.number + 1) if step.number < total else _results_url(),
        notice=notice,
        form=form,
        checked=tuple(form.checked()) if form is not None else (),
    )
    attempt_id = found.attempt.public_id
    if form is not None or notice is not None:
        return made(part, attempt_id=attempt_id, token=token)
    return kept(part, attempt_id=attempt_id, token=token)


def _answer_review(found: LearnerAttempt, step: Step, language: str) -> AnswerReview:
    """The review of question `step`'s answer, under its feedback and in the results."""
    choices, recorded = found.choices_of(step.question), step.recorded
    return AnswerReview(
        language=language,
        question=step.question,
        choices=choices,
        picked=_picked(choices, recorded),
        response=recorded.response if recorded is not None else None,
        is_correct=recorded is not None and recorded.is_correct,
    )


def _review_later(found: LearnerAttempt) -> str | None:
    """When the attempt's review shows, if it is hidden now (an assignment's rule)."""
    return found.review if found.review_hidden(timezone.now()) else None


def _question_url(number: int) -> str:
    """Question `number` of the attempt a part is for (its id filled in later)."""
    return reverse("question", kwargs={"public_id": ATTEMPT_ID, "number": number})


def _results_url() -> str:
    return reverse("results", kwargs={"public_id": ATTEMPT_ID})


@require_safe
def results(request: HttpRequest, public_id: UUID) -> HttpResponse:
    """Score, a line per question, and the reviews: all, or only the mistakes (?mistakes=1)."""
    found = _get_attempt_for(request, public_id)
    if found.is_overdue(timezone.now()):  # Its time ran out: submitted as it stood then.
        attempt_submit_overdue(attempt=found.attempt)
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
    """templates/quizzes/_results.html, kept; so are its line per question and each review,
    parts of their own shared by every results that show the same answer."""
    language = get_language()
    summary, review = [], []
    review_later = _review_later(found)
    for step in () if review_later else found.steps:
        is_correct = step.recorded is not None and step.recorded.is_correct
        credit = step.recorded.credit if step.recorded is not None else Decimal(0)
        line = {"language": language, "number": step.number, "question": step.question}
        line.update(is_correct=is_correct, credit=credit)
        summary.append(SummaryItem(**line, mistakes_only=mistakes_only))
        if not (mistakes_only and is_correct):
            review.append(ReviewItem(**line, review=_answer_review(found, step, language)))
    attempt = found.attempt
    part = ResultsPart(
        language=language,
        quiz=found.quiz,
        attempt=ScoredAttempt(kind=attempt.kind, score=attempt.score, max_score=attempt.max_score),
        passed=found.passed,
        mistakes=sum(not item.is_correct for item in summary),
        mistakes_only=mistakes_only,
        summary=tuple(summary),
        review=tuple(review),
        assignment_id=attempt.assignment_id,
        timed_out=attempt.timed_out,
        review_later=review_later,
        site=found.site if embedded() else "",  # Retry on the site's pages is the site's.
    )
    return kept(part, attempt_id=attempt.public_id, token=token)


@require_POST
@start_limited
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
    except NotPublished:
        context = {"attempt": found.attempt, "quiz": found.quiz, "reason": "unpublished"}
        return render(request, "quizzes/practice_refused.html", context, status=409)
    return redirect(attempt.question_url(1))
