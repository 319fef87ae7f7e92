import csv
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import groupby
from operator import itemgetter
from uuid import UUID

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required, permission_required
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.views import LoginView, RedirectURLMixin
from django.core.paginator import Paginator
from django.db import DEFAULT_DB_ALIAS
from django.db.models import Count, Prefetch, QuerySet
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
    StreamingHttpResponse,
)
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils.functional import cached_property
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from django.views.generic import FormView

from guides.models import GuidePath
from quizsite.queries import CompiledQuery, Placeholder
from quizsite.routers import reading_reports, reading_reports_stream

from . import reports
from .content import QuizContent, quiz_content, quiz_questions
from .forms import AnswerForm, ReportFilterForm
from .models import Attempt, Choice, Question, Quiz
from .services import (
    AlreadyAnswered,
    NotOpenYet,
    answer_record,
    attempt_start,
    attempts_claim,
)


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    quizzes = Quiz.objects.published().annotate(question_count=Count("questions"))
    guides = GuidePath.objects.published().prefetch_related(
        Prefetch("quizzes", queryset=quizzes, to_attr="published_quizzes")
    )
    unlinked = quizzes.exclude(guide_paths__is_published=True)
    return render(request, "quizzes/home.html", {"guides": guides, "unlinked_quizzes": unlinked})


# An anonymous learner's attempts are theirs through a random key that their browser keeps
# in a signed cookie for as long as a session would last: no session row to create, and no
# query to read one on every page.
LEARNER_COOKIE = "learner"


def _learner_key(request: HttpRequest) -> str | None:
    return request.get_signed_cookie(
        LEARNER_COOKIE, default=None, salt=LEARNER_COOKIE, max_age=settings.SESSION_COOKIE_AGE
    )


def _keep_learner_key(response: HttpResponse, key: str) -> None:
    response.set_signed_cookie(
        LEARNER_COOKIE,
        key,
        salt=LEARNER_COOKIE,
        max_age=settings.SESSION_COOKIE_AGE,
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite=settings.SESSION_COOKIE_SAMESITE,
    )


def _learner_attempts(request: HttpRequest) -> QuerySet[Attempt] | None:
    """The learner's attempts; None for a visitor who has started none (no key, no account)."""
    if request.user.is_authenticated:
        return Attempt.objects.filter(user=request.user)
    if key := _learner_key(request):
        return Attempt.objects.filter(user=None, learner_key=key)
    return None


def _get_published_quiz(request: HttpRequest, slug: str) -> QuizContent:
    """The quiz if learners may see it (editors also preview unpublished ones), with its
    questions and guide paths from the content kept in memory."""
    quizzes = Quiz.objects.all()
    if not request.user.has_perm("quizzes.change_quiz"):
        quizzes = quizzes.published()
    try:
        pk, updated_at = quizzes.values_list("pk", "updated_at").get(slug=slug)
    except Quiz.DoesNotExist:
        raise Http404(_("There is no quiz at this address.")) from None
    return quiz_content(pk, updated_at)


@require_safe
def quiz_detail(request: HttpRequest, slug: str) -> HttpResponse:
    content = _get_published_quiz(request, slug)
    quiz = content.quiz
    resume = None
    if (attempts := _learner_attempts(request)) is not None:
        unfinished = attempts.filter(quiz=quiz, completed_at=None).order_by("-started_at")
        resume = unfinished.annotate(answered=Count("answers")).first()
    return render(
        request,
        "quizzes/quiz_detail.html",
        {
            "quiz": quiz,
            "questions": content.questions,
            "guides": content.guide_paths,
            "resume": resume,
        },
    )


@require_POST
def quiz_start(request: HttpRequest, slug: str) -> HttpResponse:
    content = _get_published_quiz(request, slug)
    quiz = content.quiz
    if not content.questions:
        raise Http404(_("This quiz has no questions yet."))
    if request.user.is_authenticated:
        attempt = attempt_start(quiz=quiz, user=request.user)
        return redirect(attempt.question_url(1))
    key = _learner_key(request) or secrets.token_hex(16)
    attempt = attempt_start(quiz=quiz, user=None, learner_key=key)
    response = redirect(attempt.question_url(1))
    _keep_learner_key(response, key)  # Again, so that it lasts from the latest start.
    return response


@dataclass(frozen=True)
class Recorded:
    """A recorded answer: right or wrong, and the choices it picked."""

    is_correct: bool
    picked: frozenset[int]

    @property
    def key(self) -> str:
        """For the caches of the pages that show it (templates/quizzes/_answer_review.html)."""
        return ",".join(map(str, sorted(self.picked)))


Steps = list[tuple[Question, Recorded | None]]


_ATTEMPT_FIELDS = [field.attname for field in Attempt._meta.concrete_fields]
_ANSWER_FIELDS = ["question_id", "is_correct", "picks__choice"]
# The learner's attempt, its quiz's stamp and its answers with their picks (joined outer):
# every page of an attempt runs it, compiled once (quizsite/queries.py).
_attempt_rows = (
    Attempt.objects.filter(public_id=Placeholder("public_id"))
    .order_by()
    .values_list(
        *_ATTEMPT_FIELDS, "quiz__updated_at", *[f"answers__{field}" for field in _ANSWER_FIELDS]
    )
)
_USER_ATTEMPT_ROWS = CompiledQuery(_attempt_rows.filter(user=Placeholder("user")))
_LEARNER_ATTEMPT_ROWS = CompiledQuery(
    _attempt_rows.filter(user=None, learner_key=Placeholder("learner_key"))
)


def _steps(attempt: Attempt) -> Steps:
    """Every question of the attempt's quiz in order, with its recorded answer (one query)."""
    return _steps_of(attempt, attempt.answers.order_by().values_list(*_ANSWER_FIELDS))


def _steps_of(attempt: Attempt, answers: Iterable[tuple[int | None, bool, int]]) -> Steps:
    graded: dict[int, bool] = {}
    picked: dict[int, set[int]] = {}
    for question_id, is_correct, choice_id in answers:
        if question_id is None:  # No answer yet: the attempt's query joins them outer.
            continue
        graded[question_id] = is_correct
        picked.setdefault(question_id, set()).add(choice_id)
    return [
        (q, Recorded(graded[q.pk], frozenset(picked[q.pk])) if q.pk in graded else None)
        for q in quiz_questions(attempt.quiz)
    ]


def _get_attempt_for(request: HttpRequest, public_id: UUID) -> tuple[Attempt, Steps]:
    """The learner's attempt with its answers, read in one query; its quiz and questions come
    from the content kept in memory (quizzes/content.py)."""
    rows = []
    if request.user.is_authenticated:
        rows = _USER_ATTEMPT_ROWS(user=request.user.pk, public_id=public_id)
    elif key := _learner_key(request):
        rows = _LEARNER_ATTEMPT_ROWS(learner_key=key, public_id=public_id)
    if not rows:
        raise Http404(_("There is no such attempt, or it is not yours."))
    fields = len(_ATTEMPT_FIELDS)
    attempt = Attempt.from_db(DEFAULT_DB_ALIAS, _ATTEMPT_FIELDS, rows[0][:fields])
    attempt.quiz = quiz_content(attempt.quiz_id, rows[0][fields]).quiz
    return attempt, _steps_of(attempt, [row[fields + 1 :] for row in rows])


def _first_open(steps: Steps) -> int | None:
    return next((n for n, (_question, recorded) in enumerate(steps, 1) if recorded is None), None)


def _ordered_choices(attempt: Attempt, question: Question) -> list[Choice]:
    choices = list(question.choices.all())
    if attempt.quiz.shuffle_choices:
        choices.sort(key=attempt.choice_order_key)
    return choices


def _review(choices: list[Choice], recorded: Recorded | None) -> dict:
    """What templates/quizzes/_answer_review.html shows of an answer, besides the question."""
    return {
        "picked": [choice for choice in choices if recorded and choice.pk in recorded.picked],
        "picked_key": recorded.key if recorded else "",
        "correct_choices": [choice for choice in choices if choice.is_correct],
        "is_correct": recorded is not None and recorded.is_correct,
    }


def _choice_order(attempt: Attempt) -> str:
    """What the order of the choices on a page depends on, for the pages' fragment caches."""
    return str(attempt.public_id) if attempt.quiz.shuffle_choices else ""


def _out_of_order(request: HttpRequest, attempt: Attempt, first_open: int) -> HttpResponse:
    context = {"attempt": attempt, "first_open": first_open}
    return render(request, "quizzes/out_of_order.html", context, status=409)


@require_http_methods(["GET", "HEAD", "POST"])
def question(request: HttpRequest, public_id: UUID, number: int) -> HttpResponse:
    attempt, steps = _get_attempt_for(request, public_id)
    if not 1 <= number <= len(steps):
        raise Http404(_("This quiz has no question %(number)s.") % {"number": number})
    question = steps[number - 1][0]
    choices = _ordered_choices(attempt, question)
    form, status, notice = None, 200, None
    if request.method == "POST":
        posted = AnswerForm(request.POST, choices=choices)
        if posted.is_valid():  # The service tells whether it is this question's turn.
            try:
                answer_record(
                    attempt=attempt, question=question, choice=posted.cleaned_data["choice"]
                )
            except NotOpenYet as refusal:
                return _out_of_order(request, attempt, refusal.first_open)
            except AlreadyAnswered:  # In another tab, since this request read the answers.
                steps = _steps(attempt)
            else:
                return redirect(attempt.question_url(number) + "#feedback")

    first_open = _first_open(steps)
    if first_open is not None and number > first_open:
        if request.method == "POST":
            return _out_of_order(request, attempt, first_open)
        return redirect(attempt.question_url(first_open))
    recorded = steps[number - 1][1]
    if request.method == "POST":  # Not recorded: answered already, or not one of its choices.
        if recorded is not None:
            status, notice = 409, _("You have already answered this question.")
        else:
            form, status = posted, 400

    context = {
        "attempt": attempt,
        "quiz": attempt.quiz,
        "question": question,
        "choices": choices,
        "form": form,  # A refused answer's, for its error; unbound inputs are a cached fragment.
        "number": number,
        "total": len(steps),
        "answered_count": sum(1 for _question, answer in steps if answer is not None),
        "answered": recorded is not None,
        **_review(choices, recorded),
        "choice_order": _choice_order(attempt),
        "next_url": attempt.question_url(number + 1)
        if number < len(steps)
        else attempt.get_absolute_url(),
        "notice": notice,
    }
    return render(request, "quizzes/question.html", context, status=status)


@require_safe
def results(request: HttpRequest, public_id: UUID) -> HttpResponse:
    attempt, steps = _get_attempt_for(request, public_id)
    if not attempt.is_finished:
        return redirect(attempt.question_url(_first_open(steps) or 1))
    review = []
    for question, recorded in steps:
        choices = _ordered_choices(attempt, question)
        review.append({"question": question, "choices": choices, **_review(choices, recorded)})
    guides = quiz_content(attempt.quiz_id, attempt.quiz.updated_at).guide_paths
    return render(
        request,
        "quizzes/results.html",
        {
            "attempt": attempt,
            "quiz": attempt.quiz,
            "review": review,
            "guides": guides,
            "choice_order": _choice_order(attempt),
        },
    )


class SignInView(LoginView):
    """Django's sign-in, which also hands the learner the attempts made before signing in."""

    def form_valid(self, form):
        response = super().form_valid(form)
        return _claim(self.request, response)


class SignUpView(RedirectURLMixin, FormView):
    form_class = UserCreationForm
    template_name = "registration/signup.html"
    next_page = reverse_lazy("home")

    def form_valid(self, form):
        login(self.request, form.save())
        return _claim(self.request, redirect(self.get_success_url()))


def _claim(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """Move the anonymous attempts to the account that just signed in; the key goes."""
    if attempts_claim(learner_key=_learner_key(request), user=request.user):
        messages.success(request, _("Your attempts so far are now saved to your account."))
    response.delete_cookie(LEARNER_COOKIE, samesite=settings.SESSION_COOKIE_SAMESITE)
    return response


# Reports


def _report_form(request: HttpRequest) -> ReportFilterForm:
    return ReportFilterForm(request.GET, languages=settings.LANGUAGES, sorts=reports.LEARNER_SORTS)


def _get_report_quiz(slug: str) -> Quiz:
    try:
        return Quiz.objects.get(slug=slug)
    except Quiz.DoesNotExist:
        raise Http404(_("There is no quiz at this address.")) from None


def _bad_filters(form: ReportFilterForm) -> HttpResponseBadRequest:
    errors = [str(error) for errors in form.errors.values() for error in errors]
    return HttpResponseBadRequest(
        "\n".join([_("These report filters can't be used:"), *errors]),
        content_type="text/plain; charset=utf-8",
    )


@login_required
@permission_required("quizzes.view_report", raise_exception=True)
@reading_reports()
def reports_index(request: HttpRequest) -> HttpResponse:
    return render(request, "quizzes/reports/index.html", {"quizzes": reports.quizzes_overview()})


HISTOGRAM_HEIGHT = 160
HISTOGRAM_BAR = 40


def _histogram_bars(histogram: list[reports.HistogramBin]) -> dict:
    """Geometry of the score histogram's bars, drawn as inline SVG by the template."""
    top = max((item.count for item in histogram), default=0) or 1
    bars = []
    for index, item in enumerate(histogram):
        height = round((HISTOGRAM_HEIGHT - 20) * item.count / top)
        bars.append(
            {
                "item": item,
                "x": index * HISTOGRAM_BAR + 4,
                "y": HISTOGRAM_HEIGHT - height,
                "height": height,
                "middle": index * HISTOGRAM_BAR + HISTOGRAM_BAR // 2,
            }
        )
    return {
        "bars": bars,
        "width": HISTOGRAM_BAR * len(histogram),
        "bar_width": HISTOGRAM_BAR - 8,
        "baseline": HISTOGRAM_HEIGHT,
        "height": HISTOGRAM_HEIGHT + 24,
    }


def _learner_columns(request: HttpRequest, current: str) -> list[dict]:
    """The learners table's headings: each links to sorting by it (again: reversed)."""
    labels = {
        "name": _("Learner"),
        "attempts": _("Attempts"),
        "best": _("Best score"),
        "last_score": _("Last score"),
        "last_date": _("Last attempt"),
    }
    query = request.GET.copy()
    query.pop("page", None)
    columns = []
    for key in reports.LEARNER_SORTS:
        state = None
        if current.removeprefix("-") == key:
            state = "descending" if current.startswith("-") else "ascending"
        if state:
            query["sort"] = key if state == "descending" else f"-{key}"
        else:
            query["sort"] = key if key == "name" else f"-{key}"
        columns.append(
            {"key": key, "label": labels[key], "url": f"?{query.urlencode()}", "state": state}
        )
    return columns


class _CountedPaginator(Paginator):
    """A paginator told its count, which the report already has from a cheaper query."""

    def __init__(self, object_list, per_page: int, *, count: int):
        super().__init__(object_list, per_page)
        self._count = count

    @cached_property
    def count(self) -> int:
        return self._count


@login_required
@permission_required("quizzes.view_report", raise_exception=True)
@reading_reports()
def report_quiz(request: HttpRequest, slug: str) -> HttpResponse:
    quiz = _get_report_quiz(slug)
    form = _report_form(request)
    if not form.is_valid():
        return render(
            request, "quizzes/reports/quiz.html", {"quiz": quiz, "form": form}, status=400
        )
    report_filter = form.report_filter()
    items = reports.item_analysis(quiz, report_filter)
    summary = reports.quiz_summary(quiz, report_filter, items=items)
    sort = form.cleaned_data["sort"] or "-last_date"
    overview = reports.learners_overview(quiz, report_filter)
    learners = _CountedPaginator(
        reports.learners(quiz, report_filter, sort=sort), 50, count=overview.signed_in
    )
    query = request.GET.copy()
    query.pop("page", None)
    return render(
        request,
        "quizzes/reports/quiz.html",
        {
            "quiz": quiz,
            "form": form,
            "summary": summary,
            "histogram": _histogram_bars(summary.histogram),
            "items": items,
            "learners": learners.get_page(form.cleaned_data["page"]),
            "anonymous": overview.anonymous,
            "learner_columns": _learner_columns(request, sort),
            "page_query": query.urlencode(),
            "csv_query": request.GET.urlencode(),
        },
    )


class _Echo:
    """A file-like object whose write returns the line, for csv.writer in a stream."""

    def write(self, value: str) -> str:
        return value


CSV_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _csv_cell(value):
    """Text a spreadsheet would run as a formula gets a leading apostrophe; numbers stay."""
    if value is None:
        return ""
    if isinstance(value, float):
        return round(value, 3)
    if isinstance(value, str) and value.startswith(CSV_FORMULA_START):
        return f"'{value}"
    return value


def _csv_response(rows: Iterable[list], filename: str) -> StreamingHttpResponse:
    """Stream the rows as UTF-8 CSV with a byte order mark, so spreadsheets read the accents."""
    writer = csv.writer(_Echo())

    def lines():
        yield "\ufeff"
        for row in rows:
            yield writer.writerow([_csv_cell(value) for value in row])

    # Read after the view has returned: the rows' queries too must go to the reports' database.
    response = StreamingHttpResponse(
        reading_reports_stream(lines()), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _learner_name(username: str | None, first_name: str | None, last_name: str | None) -> str:
    if username is None:
        return ""
    return f"{first_name} {last_name}".strip() or username


@login_required
@permission_required("quizzes.view_report", raise_exception=True)
@reading_reports()
def report_attempts_csv(request: HttpRequest, slug: str) -> HttpResponse:
    quiz = _get_report_quiz(slug)
    form = _report_form(request)
    if not form.is_valid():
        return _bad_filters(form)
    questions = list(Question.objects.filter(quiz=quiz).prefetch_related("choices"))
    texts = {choice.pk: choice.text for q in questions for choice in q.choices.all()}
    columns = {question.pk: index for index, question in enumerate(questions)}
    # Translated now: the stream is read after the request's language is gone.
    anonymous, right, wrong = _("Anonymous"), _("right"), _("wrong")
    header = [_("Learner"), _("Completed at"), _("Language"), _("Score"), _("Out of"), _("Percent")]
    for number in range(1, len(questions) + 1):
        header += [
            _("Question %(number)s choice") % {"number": number},
            _("Question %(number)s result") % {"number": number},
        ]
    picks = reports.attempt_rows(quiz, form.report_filter())

    def rows():
        yield header
        for _attempt, attempt_picks in groupby(picks, key=itemgetter(0)):
            cells = [""] * (2 * len(questions))
            for pick in attempt_picks:
                index = columns.get(pick[8])
                if index is not None:
                    cells[2 * index] = texts.get(pick[9], "")
                    cells[2 * index + 1] = right if pick[10] else wrong
            _id, username, first, last, completed_at, language, score, out_of = pick[:8]
            yield [
                _learner_name(username, first, last) or anonymous,
                completed_at.isoformat(timespec="seconds"),
                language,
                score,
                out_of,
                round(100 * score / out_of, 1) if out_of else None,
                *cells,
            ]

    return _csv_response(rows(), f"{quiz.slug}-attempts.csv")


@login_required
@permission_required("quizzes.view_report", raise_exception=True)
@reading_reports()
def report_questions_csv(request: HttpRequest, slug: str) -> HttpResponse:
    quiz = _get_report_quiz(slug)
    form = _report_form(request)
    if not form.is_valid():
        return _bad_filters(form)
    items = reports.item_analysis(quiz, form.report_filter())
    choices = max((len(item.choices) for item in items.questions), default=0)
    header = [
        _("Question"),
        _("Prompt"),
        _("Answers"),
        _("Facility"),
        _("Discrimination index"),
        _("Discriminative efficiency"),
    ]
    for code, _name in items.languages:
        header += [
            _("Answers (%(language)s)") % {"language": code},
            _("Facility (%(language)s)") % {"language": code},
            _("Discrimination index (%(language)s)") % {"language": code},
        ]
    header.append(_("Flags"))
    for number in range(1, choices + 1):
        header += [
            _("Choice %(number)s") % {"number": number},
            _("Choice %(number)s correct") % {"number": number},
            _("Choice %(number)s picked") % {"number": number},
            _("Choice %(number)s share") % {"number": number},
        ]
    yes, no = _("yes"), _("no")
    rows = [header]
    for number, item in enumerate(items.questions, 1):
        row = [
            number,
            item.question.prompt,
            item.overall.n,
            item.overall.facility,
            item.overall.discrimination,
            item.overall.efficiency,
        ]
        for code, _name in items.languages:
            stats = item.by_language[code]
            row += [stats.n, stats.facility, stats.discrimination]
        row.append(" ".join(item.flags))
        for choice in item.choices:
            row += [
                choice.choice.text,
                yes if choice.choice.is_correct else no,
                choice.count,
                choice.share,
            ]
        rows.append(row)
    return _csv_response(rows, f"{quiz.slug}-questions.csv")
