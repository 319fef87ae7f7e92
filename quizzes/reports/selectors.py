"""Read-only score reports. Every figure is aggregated in the database.

Each function costs a fixed number of queries whatever the number of attempts:
the database returns counts grouped by a handful of small keys (question,
language, credit, total score), and Python folds those few hundred
rows into the statistics (a calculated question's variants by the values each answer keeps,
`Answer.variant`). On PostgreSQL the counts come from the rollups its triggers keep
(quizzes/reports/rollups.py, `_rollup`), the same figures without scanning the attempts.
Item statistics follow Moodle's quiz statistics
report, on fractional scores: facility (the mean credit), discrimination index
(100 × the Pearson correlation of the item's credit with the rest-of-test score,
the attempt's score less that credit) and discriminative efficiency
(that covariance as a share of the largest one the two distributions allow).
"""

import math
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import date, datetime, time, timedelta
from decimal import Decimal

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connections, router
from django.db.models import (
    Avg,
    Case,
    CharField,
    Count,
    Exists,
    ExpressionWrapper,
    F,
    FilteredRelation,
    FloatField,
    Max,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Coalesce, Concat, Lower
from django.template.defaultfilters import floatformat
from django.utils import timezone, translation
from django.utils.html import conditional_escape
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from quizzes.kinds import calculated
from quizzes.kinds.base import GradedQuestion
from quizzes.kinds.gaps import GAP_KINDS, gap_answers
from quizzes.kinds.matching import Matching, is_matched, learner_pairs
from quizzes.kinds.numerical import number_text
from quizzes.kinds.ordering import Ordering, response_ids
from quizzes.markup.rendering import is_french
from quizzes.models import (
    Answer,
    AnswerChoice,
    Assignment,
    Attempt,
    AttemptKind,
    Choice,
    Class,
    Membership,
    Question,
    Quiz,
)
from quizzes.reports.rollups import ANSWER_COUNTS, ATTEMPT_COUNTS, LEARNER_COUNTS
from quizzes.snapshots import Text, choices_as_shown, drawn, quiz_content
from quizzes.templatetags.gaps import right_answer

# Thresholds for the flags, from the issue (and Moodle's guidance).
EASY_ABOVE = 0.9
HARD_BELOW = 0.2
DISCRIMINATION_BELOW = 20
EFFICIENCY_BELOW = 15
LANGUAGE_GAP_ABOVE = 0.2
NBSP = "\u00a0"


@dataclass(frozen=True)
class ReportFilter:
    date_from: date | None = None
    date_to: date | None = None
    language: str = ""
    first_only: bool = True
    # Practice and single-question attempts too (never editors' previews).
    with_practice: bool = False
    # The attempts started in a frame on this allowed site's pages (its origin); "": all.
    site: str = ""
    # A class's report: its learners' attempts at its assignments (a first attempt is then
    # each one's first at the assignment, its number 1).
    klass: int | None = None
    # An instructor without the site-wide report permission: only the learners of the
    # classes they teach (the user's id); None: every learner.
    taught_by: int | None = None


DEFAULT_FILTER = ReportFilter()  # What a quiz's report and the index count by default.


def _percent(prefix: str = ""):
    return ExpressionWrapper(
        F(f"{prefix}score") * 100.0 / F(f"{prefix}max_score"), output_field=FloatField()
    )


def _kinds(report_filter: ReportFilter) -> list[str]:
    """The kinds of attempts the report counts: quiz attempts, and with practice the
    practice and single-question ones."""
    if report_filter.with_practice:
        return [AttemptKind.QUIZ, AttemptKind.PRACTICE, AttemptKind.QUESTION]
    return [AttemptKind.QUIZ]


def _in_report(quiz: Quiz | None, report_filter: ReportFilter, prefix: str = "") -> Q:
    """The filter on attempts, with a lookup prefix to apply it across a relation; editors'
    previews are never in it. Without `quiz`, on the attempts of any quiz."""
    kept = Q(**{f"{prefix}kind__in": _kinds(report_filter)})
    if quiz is not None:
        kept &= Q(**{f"{prefix}quiz": quiz})
    if report_filter.date_from:
        start = datetime.combine(report_filter.date_from, time.min)
        kept &= Q(**{f"{prefix}started_at__gte": timezone.make_aware(start)})
    if report_filter.date_to and report_filter.date_to < date.max:  # Through that day.
        end = datetime.combine(report_filter.date_to + timedelta(days=1), time.min)
        kept &= Q(**{f"{prefix}started_at__lt": timezone.make_aware(end)})
    if report_filter.language:
        kept &= Q(**{f"{prefix}language": report_filter.language})
    if report_filter.site:
        kept &= Q(**{f"{prefix}embedded_in__origin": report_filter.site})
    if report_filter.first_only and report_filter.klass is None:
        kept &= Q(**{f"{prefix}is_first": True})
    elif report_filter.first_only:
        kept &= Q(**{f"{prefix}number": 1})
    if report_filter.klass is not None:
        members = Membership.objects.filter(klass=report_filter.klass).values("learner")
        kept &= Q(
            **{f"{prefix}assignment__klass": report_filter.klass, f"{prefix}user__in": members}
        )
    return kept & _in_scope(report_filter.taught_by, prefix)


def _in_scope(taught_by: int | None, prefix: str = "") -> Q:
    """The attempts an instructor may read: with the site-wide permission (`taught_by`
    None) anyone's, else those of the learners of the classes they teach, whichever quiz
    and assignment (self-study too): the learners, not their attempts, are in the class."""
    if taught_by is None:
        return Q()
    members = Membership.objects.filter(klass__instructors=taught_by).values("learner")
    return Q(**{f"{prefix}user__in": members})


def attempts_for(quiz: Quiz, report_filter: ReportFilter) -> QuerySet[Attempt]:
    """The quiz's attempts that the filter keeps, started or completed.

    A first attempt is the learner's earliest at this quiz over all time (a
    signed-in learner is their account, an anonymous one their browser's key; see
    Attempt.is_first), so narrowing the dates never turns a retry into a first attempt.
    """
    return Attempt.objects.filter(_in_report(quiz, report_filter)).order_by()


def _answered(prefix: str = "") -> Exists:
    """The attempt has at least one answer: what the reports count as started (an attempt
    opened and never answered, a Start clicked by mistake, is not)."""
    return Exists(Answer.objects.filter(attempt=OuterRef(f"{prefix}pk")))


def _completed_answers(quiz: Quiz, report_filter: ReportFilter) -> QuerySet[Answer]:
    """The answers of the completed attempts the filter keeps, joined to them once.

    Their choice is `Answer.choice`, so the picks are not joined: that join took most of a
    report's time at 100,000 attempts (bench/REPORTS.md).
    """
    return Answer.objects.filter(
        _in_report(quiz, report_filter, "attempt__"), attempt__completed_at__isnull=False
    )


def completed_for(quiz: Quiz, report_filter: ReportFilter) -> QuerySet[Attempt]:
    return attempts_for(quiz, report_filter).filter(completed_at__isnull=False)


# Rollups (quizzes/reports/rollups.py)


def _rollup(quiz: Quiz, report_filter: ReportFilter):
    """Where the rollups give the figures of this report, (the connection, the WHERE
    clause on a rollup's rows, its parameters); None where the report scans the attempts:
    not on PostgreSQL (or with `settings.REPORT_ROLLUPS` off), for a class's report, an
    instructor's learners (theirs, not the site's) or one embedding site's attempts (the
    rollups don't keep the site), or with a time zone other than the one
    the rollups' days are in. Both ways give the rows in the same order, so that the
    figures folded from them are the same to the last bit."""
    connection = connections[router.db_for_read(Attempt)]
    if (
        not settings.REPORT_ROLLUPS
        or connection.vendor != "postgresql"
        or report_filter.klass is not None
        or report_filter.taught_by is not None
        or report_filter.site
        or timezone.get_current_timezone_name() != settings.TIME_ZONE
    ):
        return None
    kinds = [str(kind) for kind in _kinds(report_filter)]
    where, params = ["quiz_id = %s", "kind = ANY(%s)"], [quiz.pk, kinds]
    if report_filter.date_from is None and report_filter.date_to in (None, date.max):
        where.append("day IS NULL")  # The all-time rows.
    else:
        where.append("day IS NOT NULL")
        if report_filter.date_from:
            where.append("day >= %s")
            params.append(report_filter.date_from)
        if report_filter.date_to and report_filter.date_to < date.max:
            where.append("day <= %s")
            params.append(report_filter.date_to)
    if report_filter.language:
        where.append("language = %s")
        params.append(report_filter.language)
    if report_filter.first_only:
        where.append("is_first")
    return connection, " AND ".join(where), params


def _rollup_rows(rollup, sql: str, params: list, *, first: list | tuple = ()) -> list[tuple]:
    """The rows of `sql` on the rollups: its "{where}" the rollup's rows of the report, with
    their parameters, followed by `params`, and preceded by `first`; "{attempts}" and
    "{answers}" the counts of attempts and answers, rollup and deltas together."""
    connection, where, where_params = rollup
    with connection.cursor() as cursor:
        sql = sql.replace("{attempts}", ATTEMPT_COUNTS).replace("{answers}", ANSWER_COUNTS)
        cursor.execute(sql.replace("{where}", where), [*first, *where_params, *params])
        return cursor.fetchall()


# Summary and score distribution


# The score distribution's bands, in percent of the score: 0 to 10 %, …, 90 to 100 %.
HISTOGRAM_BAND = 10


@dataclass(frozen=True)
class HistogramBin:
    low: int  # Percent, the band's lowest score; the band goes up to low + HISTOGRAM_BAND,
    high: int  # which it leaves to the next band, but for the last one, which holds 100 %.
    count: int
    share: float


@dataclass(frozen=True)
class Summary:
    started: int
    completed: int
    completion_rate: float | None
    mean: float | None
    median: float | None
    std_dev: float | None
    pass_rate: float | None
    alpha: float | None
    max_score: int
    histogram: list[HistogramBin]


def _median(values: list[tuple[float, int]]) -> float | None:
    """The median of a distribution given as sorted (value, count) pairs."""
    total = sum(count for _value, count in values)
    if not total:
        return None
    lower, upper = (total - 1) // 2, total // 2
    seen = 0
    low = high = None
    for value, count in values:
        if low is None and lower < seen + count:
            low = value
        if upper < seen + count:
            high = value
            break
        seen += count
    return (low + high) / 2


def quiz_summary(
    quiz: Quiz, report_filter: ReportFilter, *, items: "ItemAnalysis | None" = None
) -> Summary:
    """One query: the answered attempts grouped by (score, out of); unfinished ones have no
    score yet.

    Pass `items` (from item_analysis) to get Cronbach's alpha (KR-20); without it
    the question count costs a second query. Scores (sums of the answers' credits, so
    fractions) are percentages, and the distribution counts them in bands of
    HISTOGRAM_BAND percent; the standard deviation is the sample one (n - 1).
    """
    rollup = _rollup(quiz, report_filter)
    if rollup is not None:
        groups = _rollup_rows(
            rollup,
            "SELECT score, max_score, sum(n)::bigint FROM {attempts} c "
            "WHERE {where} AND answered GROUP BY score, max_score HAVING sum(n) > 0 "
            "ORDER BY score, max_score",
            [],
        )
    else:
        groups = list(
            attempts_for(quiz, report_filter)
            .filter(_answered())
            .values_list("score", "max_score")
            .annotate(n=Count("pk"))
            .order_by("score", "max_score")
        )
    started = sum(count for _score, _out_of, count in groups)
    rows = [
        (float(score), out_of, n) for score, out_of, n in groups if score is not None and out_of
    ]
    questions = quiz.questions.count() if items is None else len(items.questions)
    max_score = questions or max((out_of for _s, out_of, _n in rows), default=0)
    n = sum(count for _s, _o, count in rows)
    percents = sorted((100 * score / out_of, count) for score, out_of, count in rows)
    mean = sum(p * count for p, count in percents) / n if n else None
    std_dev = None
    if n > 1:
        std_dev = math.sqrt(sum(count * (p - mean) ** 2 for p, count in percents) / (n - 1))
    passed = sum(
        count for score, out_of, count in rows if round(100 * score / out_of) >= quiz.pass_mark
    )
    bins = defaultdict(int)
    bands = 100 // HISTOGRAM_BAND
    for percent, count in percents:
        bins[min(int(percent // HISTOGRAM_BAND), bands - 1)] += count
    histogram = [
        HistogramBin(
            low=band * HISTOGRAM_BAND,
            high=(band + 1) * HISTOGRAM_BAND,
            count=bins[band],
            share=bins[band] / n if n else 0.0,
        )
        for band in range(bands)
    ]
    alpha = None
    if items is not None and n > 1:
        alpha = _kr20(items, [(score, count) for score, _o, count in rows])
    return Summary(
        started=started,
        completed=n,
        completion_rate=n / started if started else None,
        mean=mean,
        median=_median(percents),
        std_dev=std_dev,
        pass_rate=passed / n if n else None,
        alpha=alpha,
        max_score=max_score,
        histogram=histogram,
    )


def _kr20(items: "ItemAnalysis", scores: list[tuple[int, int]]) -> float | None:
    """KR-20 = k/(k-1) · (1 - Σ p·q / σ²), population variances on both sides."""
    answered = [item.overall for item in items.questions if item.overall.n]
    k = len(answered)
    n = sum(count for _score, count in scores)
    if k < 2 or not n:
        return None
    mean = sum(score * count for score, count in scores) / n
    variance = sum(count * (score - mean) ** 2 for score, count in scores) / n
    if not variance:
        return None
    item_variance = sum(s.facility * (1 - s.facility) for s in answered)
    return k / (k - 1) * (1 - item_variance / variance)


# Item analysis


@dataclass(frozen=True)
class ItemStats:
    n: int
    facility: float | None
    discrimination: float | None
    efficiency: float | None


def item_stats(cells: Iterable[tuple[float, float, int]]) -> ItemStats:
    """Facility, discrimination and efficiency from (item score, rest-of-test score, count),
    the item score being the answer's credit (0 to 1) and the rest of the test the
    attempt's score less that credit, as Moodle's quiz statistics take them.

    Facility is the mean credit; Pearson's r comes from the sums of x, y, x², y² and xy.
    The largest covariance the two distributions allow pairs the highest item scores
    with the highest rest scores (for right or wrong items: the k right answers, k = Σx,
    with the k highest rest scores): that is what sorting both lists gives.
    """
    cells = [cell for cell in cells if cell[2]]
    n = sum(count for _x, _y, count in cells)
    if not n:
        return ItemStats(n=0, facility=None, discrimination=None, efficiency=None)
    sx = sum(x * count for x, _y, count in cells)
    sxx = sum(x * x * count for x, _y, count in cells)
    sy = sum(y * count for _x, y, count in cells)
    syy = sum(y * y * count for _x, y, count in cells)
    sxy = sum(x * y * count for x, y, count in cells)
    covariance = n * sxy - sx * sy
    spread = (n * sxx - sx * sx) * (n * syy - sy * sy)
    discrimination = 100 * covariance / math.sqrt(spread) if spread > 0 else None
    most = n * _sorted_products(cells) - sx * sy
    efficiency = 100 * covariance / most if most > 0 else None
    return ItemStats(n=n, facility=sx / n, discrimination=discrimination, efficiency=efficiency)


def _sorted_products(cells: list[tuple[float, float, int]]) -> float:
    """Σxy with the x and the y each sorted from the highest: the largest Σxy they allow."""
    xs = sorted(((x, count) for x, _y, count in cells), reverse=True)
    ys = sorted(((y, count) for _x, y, count in cells), reverse=True)
    total, i, j, x_left, y_left = 0.0, 0, 0, xs[0][1], ys[0][1]
    while i < len(xs) and j < len(ys):
        taken = min(x_left, y_left)
        total += xs[i][0] * ys[j][0] * taken
        x_left, y_left = x_left - taken, y_left - taken
        if not x_left and (i := i + 1) < len(xs):
            x_left = xs[i][1]
        if not y_left and (j := j + 1) < len(ys):
            y_left = ys[j][1]
    return total


@dataclass(frozen=True)
class ChoiceStats:
    choice: Choice
    count: int
    share: float | None


@dataclass(frozen=True)
class WrongResponse:
    """A wrong answer typed (a number, a short answer) and how often: the distractor
    analysis of free answers, for an editor to add it as an answer with its feedback."""

    response: str  # As Answer.response keeps it ("1024").
    shown: str  # As the page's language writes it ("1 024").
    count: int
    by_language: tuple[tuple[str, int], ...]  # (code, count) for each language of the report.
    matched: Choice | None  # The answer (a known mistake) it matched, if any.

    @property
    def given_in(self) -> tuple[tuple[str, int], ...]:
        """(code, count) for the languages it was given in, those of none left out."""
        return tuple((code, count) for code, count in self.by_language if count)


@dataclass(frozen=True)
class VariantStats:
    """A calculated question's variant, the values an attempt drew, as learners answered it:
    so that an instructor sees which variants they get wrong."""

    values: str  # As the page's language writes them: "workers = 8, local batch = 32".
    right: str  # Its right answer, the right formula's value: "1,024".
    count: int  # Its answers.
    facility: float  # Their mean credit.
    wrong: tuple[WrongResponse, ...]  # Its most frequent wrong answers.


@dataclass(frozen=True)
class GapStats:
    """One gap of a gaps question as learners filled it: its choices, each with the answers
    that picked it (a choice gap) or matched it (a typed gap's accepted answers or values),
    its facility (the mean of the gap's scores) and, for a typed gap, its most frequent
    wrong answers."""

    number: int
    kind: str  # Its kind's name: "single", "numerical", "short_answer".
    count: int  # The answers that filled it.
    facility: float | None
    choices: tuple[ChoiceStats, ...]
    wrong: tuple[WrongResponse, ...]

    @property
    def typed(self) -> bool:
        return GAP_KINDS[self.kind].typed


@dataclass
class QuestionStats:
    question: Question
    overall: ItemStats
    by_language: dict[str, ItemStats]
    choices: list[ChoiceStats]
    flags: list[str] = field(default_factory=list)
    wrong_responses: list[WrongResponse] = field(default_factory=list)
    gaps: list[GapStats] = field(default_factory=list)  # A gaps question's, in order.
    # A calculated question's variants, those with the most wrong answers first, at most
    # VARIANTS_SHOWN; `variants_answered` counts them all.
    variants: list[VariantStats] = field(default_factory=list)
    variants_answered: int = 0


WRONG_RESPONSES_SHOWN = 5  # The most frequent wrong answers listed per question.
VARIANTS_SHOWN = 10  # A calculated question's variants listed, and their wrong answers each:
WRONG_IN_VARIANT_SHOWN = 3


@dataclass(frozen=True)
class ItemAnalysis:
    questions: list[QuestionStats]
    languages: list[tuple[str, str]]


def item_analysis(quiz: Quiz, report_filter: ReportFilter) -> ItemAnalysis:
    """Three queries: questions, their choices, and answers grouped by (question, choice,
    credit, language, score), one scan for both the item statistics and the
    choice counts; one more for a quiz with questions answered by typing (numerical, short
    answer): their most frequent wrong responses (`_wrong_responses_add`); one more for a
    quiz with calculated questions: their answers by variant (`_variants_add`); one more for
    a quiz with gaps questions: each gap's picks, facility and wrong answers (`_gaps_fold`).

    Questions and choices are model instances so their translated text falls
    back like everywhere else on the site.
    """
    questions = list(Question.objects.filter(quiz=quiz).prefetch_related("choices"))
    rollup = _rollup(quiz, report_filter)
    if rollup is not None:
        cells = _rollup_rows(
            rollup,
            "SELECT question_id, choice_id, credit, language, score, sum(n)::bigint "
            "FROM {answers} c WHERE {where} "
            "GROUP BY question_id, choice_id, credit, language, score HAVING sum(n) > 0 "
            "ORDER BY question_id, choice_id, credit, language, score",
            [],
        )
    else:
        cells = (
            _completed_answers(quiz, report_filter)
            .values_list(
                "question_id", "choice_id", "credit", "attempt__language", "attempt__score"
            )
            .annotate(n=Count("pk"))
            .order_by("question_id", "choice_id", "credit", "attempt__language", "attempt__score")
        )
    by_question: dict[int, list[tuple[str, float, float, int]]] = defaultdict(list)
    picks: dict[int, int] = defaultdict(int)
    for question_id, choice_id, credit, language, score, count in cells:
        x = float(credit)
        by_question[question_id].append((language, x, float(score) - x, count))
        picks[choice_id] += count
    if any(question.type.several for question in questions):
        for choice_id, count in _multiple_picks(quiz, report_filter):
            picks[choice_id] += count
    languages = [
        (code, name)
        for code, name in settings.LANGUAGES
        if not report_filter.language or code == report_filter.language
    ]
    filled = [question for question in questions if question.type.fills_prompt]
    gap_folds = _gaps_fold(filled, quiz, report_filter) if filled else {}
    result = []
    for question in questions:
        rows = by_question[question.pk]
        overall = item_stats((x, y, count) for _lang, x, y, count in rows)
        by_language = {
            code: item_stats((x, y, count) for lang, x, y, count in rows if lang == code)
            for code, _name in languages
        }
        folds = gap_folds.get(question.pk, {})
        counted = picks
        if question.type.fills_prompt:  # A pick in each gap, counted by its gap.
            counted = {pk: n for fold in folds.values() for pk, n in fold.picks.items()}
        choices = [
            ChoiceStats(
                choice=choice,
                count=counted.get(choice.pk, 0),
                share=counted.get(choice.pk, 0) / overall.n if overall.n else None,
            )
            for choice in question.choices.all()
        ]
        stats = QuestionStats(
            question=question, overall=overall, by_language=by_language, choices=choices
        )
        if question.type.fills_prompt:
            _gaps_add(stats, folds, languages)
        stats.flags = question_flags(stats, dict(languages))
        result.append(stats)
    typed = [
        stats
        for stats in result
        if stats.question.type.typed and not stats.question.type.has_variables
    ]
    if typed:
        _wrong_responses_add(typed, quiz, report_filter, languages)
    drawn_per_attempt = [stats for stats in result if stats.question.type.has_variables]
    if drawn_per_attempt:
        _variants_add(drawn_per_attempt, quiz, report_filter, languages)
    return ItemAnalysis(questions=result, languages=languages)


def _wrong_responses_add(
    items: list[QuestionStats],
    quiz: Quiz,
    report_filter: ReportFilter,
    languages: list[tuple[str, str]],
) -> None:
    """The most frequent wrong responses of these questions (kinds answered by typing), at
    most WRONG_RESPONSES_SHOWN each, the most frequent first (then by response): one query
    for all of them, grouped and ranked by the database (a window over the groups)."""
    by_pk = {item.question.pk: item for item in items}
    per_language = {
        f"n_{code}": Count("pk", filter=Q(attempt__language=code)) for code, _name in languages
    }
    columns = ["question_id", "response", "n", "matched", *per_language]
    rollup = _rollup(quiz, report_filter)
    if rollup is not None:  # The same groups, from the rollup's counts.
        connection, where, where_params = rollup
        counts = ", ".join(
            f"coalesce(sum(n) FILTER (WHERE language = %s), 0)::bigint AS n_{code}"
            for code, _name in languages
        )
        # Summed by key first: a pick's rows of the rollup and of the deltas may cancel out.
        sql = (
            f"SELECT question_id, response, sum(n)::bigint AS n, "
            f"max(choice_id) FILTER (WHERE n > 0) AS matched, {counts} "
            f"FROM (SELECT question_id, response, language, choice_id, sum(n) AS n "
            f"FROM {ANSWER_COUNTS} c WHERE {where} AND question_id = ANY(%s) "
            f"AND NOT is_correct AND response <> '' "
            f"GROUP BY question_id, response, language, choice_id) g "
            f"GROUP BY question_id, response HAVING sum(n) > 0"
        )
        params = [*(code for code, _name in languages), *where_params, list(by_pk)]
    else:
        grouped = (
            _completed_answers(quiz, report_filter)
            .filter(question__in=list(by_pk), is_correct=False)
            .exclude(response="")
            .values("question_id", "response")
            .annotate(n=Count("pk"), matched=Max("choice_id"), **per_language)
            .order_by()
        )
        # Ranked over the groups: Django can't order a window by an aggregate of its own query.
        sql, params = grouped.query.sql_with_params()
        connection = connections[grouped.db]
    quoted = ", ".join(connection.ops.quote_name(column) for column in columns)
    n, response = connection.ops.quote_name("n"), connection.ops.quote_name("response")
    ranked = (
        f"SELECT {quoted} FROM (SELECT {quoted}, ROW_NUMBER() OVER (PARTITION BY "
        f"{connection.ops.quote_name('question_id')} ORDER BY {n} DESC, {response}) AS rank "
        f"FROM ({sql}) grouped) ranked WHERE rank <= %s ORDER BY "
        f"{connection.ops.quote_name('question_id')}, rank"
    )
    with connection.cursor() as cursor:
        cursor.execute(ranked, (*params, WRONG_RESPONSES_SHOWN))
        rows = [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]
    for row in rows:
        item = by_pk[row["question_id"]]
        choices = {choice.pk: choice for choice in item.question.choices.all()}
        item.wrong_responses.append(
            WrongResponse(
                response=row["response"],
                shown=item.question.type.shown_response(row["response"]),
                count=row["n"],
                by_language=tuple((code, row[f"n_{code}"]) for code, _name in languages),
                matched=choices.get(row["matched"]),
            )
        )


@dataclass
class _GapFold:
    """What `_gaps_fold` counts of one gap: answers, scores, picks, wrong typed responses."""

    count: int = 0
    score: float = 0.0
    picks: dict = field(default_factory=lambda: defaultdict(int))  # choice id: answers
    wrong: dict = field(default_factory=dict)  # (response, choice id): {language: count}


def _gaps_fold(
    questions: list[Question], quiz: Quiz, report_filter: ReportFilter
) -> dict[int, dict[int, _GapFold]]:
    """Each gap of these gaps questions as their answers filled it, by question and gap
    number: one query for all of them.

    The database groups the answers by (question, response, language), each group with the
    choice its answers picked in each gap (a gap picks at most one: `Answer.choice` is None
    for an answer of several picks); Python reads each group's gaps from its response (a
    JSON list, which the database can't group by portably) and grades each gap with its kind,
    as the answer was graded. A response that no longer fits the question's gaps (edited
    since) is left out of the gaps' counts, as it is of their reviews."""
    by_pk = {
        question.pk: GradedQuestion.of(question, question.choices.all()) for question in questions
    }
    most = max(len(question.gaps) for question in by_pk.values())
    rollup = _rollup(quiz, report_filter)
    if rollup is not None:
        rows = _gap_rows(rollup, by_pk, most)
    else:
        per_gap = {
            f"gap_{number}": Max("picks__choice_id", filter=Q(picks__choice__gap=number))
            for number in range(1, most + 1)
        }
        rows = (
            _completed_answers(quiz, report_filter)
            .filter(question__in=list(by_pk))
            .values("question_id", "response", "attempt__language")
            .annotate(n=Count("pk", distinct=True), **per_gap)
            .order_by("question_id", "response", "attempt__language")
        )
    per_gap = [f"gap_{number}" for number in range(1, most + 1)]
    found: dict[int, dict[int, _GapFold]] = defaultdict(lambda: defaultdict(_GapFold))
    for row in rows:
        question, count = by_pk[row["question_id"]], row["n"]
        picked = {row[name] for name in per_gap} - {None}
        for gap in gap_answers(question, row["response"], picked):
            fold = found[question.pk][gap.number]
            fold.count += count
            fold.score += gap.score * count
            if gap.matched is not None:
                fold.picks[gap.matched.pk] += count
            if gap.score < 1 and not gap.is_choice:
                key = (gap.response, getattr(gap.matched, "pk", None))
                fold.wrong.setdefault(key, defaultdict(int))[row["attempt__language"]] += count
    return found


def _gap_rows(rollup, by_pk: dict, most: int) -> list[dict]:
    """`_gaps_fold`'s rows from the rollup: its groups by (question, response, language)
    with the picks of their answers (an answer's `choice`, or its several picks), each
    group's pick in each gap the highest, as the scan's `Max` gives it."""
    gaps = {choice.pk: choice.gap for q in by_pk.values() for choice in q.choices}
    groups: dict[tuple, dict] = {}
    for question_id, response, language, choice_id, picks, n in _rollup_rows(
        rollup,
        "SELECT question_id, response, language, choice_id, picks, sum(n)::bigint "
        "FROM {answers} c WHERE {where} AND question_id = ANY(%s) "
        "GROUP BY question_id, response, language, choice_id, picks HAVING sum(n) > 0 "
        "ORDER BY question_id, response, language",
        [list(by_pk)],
    ):
        row = groups.setdefault(
            (question_id, response, language),
            {"question_id": question_id, "response": response, "attempt__language": language}
            | {f"gap_{number}": None for number in range(1, most + 1)}
            | {"n": 0},
        )
        row["n"] += n
        for pk in [choice_id] if choice_id is not None else picks:
            name = f"gap_{gaps.get(pk)}"
            if name in row and (row[name] is None or pk > row[name]):
                row[name] = pk
    return list(groups.values())


def _gaps_add(
    stats: QuestionStats, folds: dict[int, _GapFold], languages: list[tuple[str, str]]
) -> None:
    """A gaps question's gaps (`_gaps_fold`): each with its choices' counts, its facility and
    its most frequent wrong answers; and as the question's most frequent wrong answers (the
    questions' CSV lists them), each gap's, named by its number: "(1) 32"."""
    choices = {choice.choice.pk: choice.choice for choice in stats.choices}
    for number, kind in enumerate(stats.question.gaps, 1):
        fold = folds.get(number, _GapFold())
        listed = sorted(
            (
                WrongResponse(
                    response=response,
                    shown=GAP_KINDS[kind].shown_response(response),
                    count=sum(counts.values()),
                    by_language=tuple((code, counts[code]) for code, _name in languages),
                    matched=choices.get(matched),
                )
                for (response, matched), counts in fold.wrong.items()
            ),
            key=lambda wrong: (-wrong.count, wrong.response),
        )[:WRONG_RESPONSES_SHOWN]
        stats.gaps.append(
            GapStats(
                number=number,
                kind=kind,
                count=fold.count,
                facility=fold.score / fold.count if fold.count else None,
                choices=tuple(
                    replace(choice, share=choice.count / fold.count if fold.count else None)
                    for choice in stats.choices
                    if choice.choice.gap == number
                ),
                wrong=tuple(listed),
            )
        )
        stats.wrong_responses += [
            replace(wrong, shown=f"({number}) {wrong.shown}") for wrong in listed
        ]


@dataclass
class _Variant:
    """What `_variants_add` counts of one variant: answers, credits, wrong responses."""

    count: int = 0
    credit: Decimal = Decimal(0)
    wrong: dict = field(default_factory=dict)  # (response, choice id): {language: count}


def _variants_add(
    items: list[QuestionStats],
    quiz: Quiz,
    report_filter: ReportFilter,
    languages: list[tuple[str, str]],
) -> None:
    """The answers of these calculated questions grouped by the variant each attempt drew,
    with each variant's right answer, facility and most frequent wrong answers; and as the
    questions' most frequent wrong answers, the most frequent (variant, response) pairs.

    One query for all of them: the answers grouped by the variant their attempt drew, as
    `Answer.variant` keeps it (until the answers kept it, each was drawn again in Python, a
    row per answer), with their language, credit and response."""
    by_pk = {item.question.pk: item for item in items}
    columns = [
        "question_id",
        "variant",
        "language",
        "credit",
        "is_correct",
        "response",
        "choice_id",
    ]
    rollup = _rollup(quiz, report_filter)
    if rollup is not None:
        listing = ", ".join(columns)
        rows = _rollup_rows(
            rollup,
            f"SELECT {listing}, sum(n)::bigint FROM {{answers}} c "
            f"WHERE {{where}} AND question_id = ANY(%s) GROUP BY {listing} "
            f"HAVING sum(n) > 0 ORDER BY {listing}",
            [list(by_pk)],
        )
    else:
        scanned = [name if name != "language" else "attempt__language" for name in columns]
        rows = (
            _completed_answers(quiz, report_filter)
            .filter(question__in=list(by_pk))
            .values_list(*scanned)
            .annotate(n=Count("pk"))
            .order_by(*scanned)
        )
    found: dict[int, dict[tuple, _Variant]] = defaultdict(lambda: defaultdict(_Variant))
    for question_id, key, language, credit, is_correct, response, matched, n in rows:
        variant = found[question_id][calculated.variant_values(key)]
        variant.count += n
        variant.credit += credit * n
        if not is_correct and response:
            counts = variant.wrong.setdefault((response, matched), defaultdict(int))
            counts[language] += n
    for question_id, variants in found.items():
        item = by_pk[question_id]
        choices = {choice.pk: choice for choice in item.question.choices.all()}
        right = next((choice for choice in choices.values() if choice.is_correct), None)
        listed = []
        for values, variant in variants.items():
            wrong = sorted(
                (
                    WrongResponse(
                        response=response,
                        shown=item.question.type.shown_response(response),
                        count=sum(counts.values()),
                        by_language=tuple((code, counts[code]) for code, _name in languages),
                        matched=choices.get(matched),
                    )
                    for (response, matched), counts in variant.wrong.items()
                ),
                key=lambda wrong: (-wrong.count, wrong.response),
            )
            listed.append(
                VariantStats(
                    values=_variant_values(values),
                    right=_right_value(right, dict(values)),
                    count=variant.count,
                    facility=float(variant.credit / variant.count),
                    wrong=tuple(wrong),
                )
            )
        listed.sort(key=lambda v: (-sum(w.count for w in v.wrong), -v.count, v.values))
        item.variants = [
            replace(variant, wrong=variant.wrong[:WRONG_IN_VARIANT_SHOWN])
            for variant in listed[:VARIANTS_SHOWN]
        ]
        item.variants_answered = len(listed)
        pairs = [(wrong, variant) for variant in listed for wrong in variant.wrong]
        pairs.sort(key=lambda pair: (-pair[0].count, pair[0].response, pair[1].values))
        item.wrong_responses = [
            replace(wrong, shown=f"{wrong.shown} ({variant.values})")
            for wrong, variant in pairs[:WRONG_RESPONSES_SHOWN]
        ]


def _variant_values(values: tuple[tuple[str, Decimal], ...]) -> str:
    """A variant's values as the active language writes them: "workers = 8, local batch = 32",
    each name, "=" and value kept on one line (no-break spaces)."""
    language = get_language()
    return ", ".join(
        f"{name.replace('_', NBSP)}{NBSP}={NBSP}{calculated.shown(value, language)}"
        for name, value in values
    )


def _right_value(right: Choice | None, values: dict[str, Decimal]) -> str:
    """The right formula's value for a variant, as the active language writes it; "–" for a
    question without one, or whose formula fails on it (its checks let none through)."""
    if right is None:
        return "–"
    try:
        texts = {code: getattr(right, f"text_{code}") or "" for code, _name in settings.LANGUAGES}
        value = calculated.evaluate(calculated.formula_of(texts), values)
    except calculated.FormulaError:
        return "–"
    return number_text(value)


def _multiple_picks(quiz: Quiz, report_filter: ReportFilter) -> QuerySet:
    """(choice id, count) of the picks of the answers that picked several choices, which
    have no `Answer.choice`: one query more, for the quizzes that have such questions."""
    rollup = _rollup(quiz, report_filter)
    if rollup is not None:
        return _rollup_rows(
            rollup,
            "SELECT pick, sum(n)::bigint FROM {answers} c, unnest(c.picks) AS pick "
            "WHERE {where} AND choice_id IS NULL GROUP BY pick HAVING sum(n) > 0",
            [],
        )
    return (
        AnswerChoice.objects.filter(
            _in_report(quiz, report_filter, "answer__attempt__"),
            answer__attempt__completed_at__isnull=False,
            answer__choice=None,
        )
        .values_list("choice_id")
        .annotate(n=Count("pk"))
        .order_by()
    )


def _decimal(value: float) -> str:
    """A figure of a sentence as the page's language writes it, as the tables do: 0.32, 0,32."""
    return floatformat(value, 2)  # Rounded: number_format would cut 0.667 to 0.66.


def _in_sentence(name: str) -> str:
    """A language's name inside a sentence: French writes "anglais", English "English"."""
    return name[:1].lower() + name[1:] if is_french(get_language()) else name


def question_flags(stats: QuestionStats, language_names: dict[str, str]) -> list[str]:
    """What an instructor should look at in this question, in words."""
    overall = stats.overall
    if not overall.n:
        return []
    flags = []
    if overall.facility > EASY_ABOVE:
        flags.append(_("Too easy: more than 90% of learners answer it right."))
    if overall.facility < HARD_BELOW:
        flags.append(_("Too hard: fewer than 20% of learners answer it right."))
    if overall.discrimination is not None and overall.discrimination < 0:
        flags.append(
            _(
                "Negative discrimination: learners who do well on the rest of the quiz get "
                "this one wrong more often. The question or its answer may be wrong or "
                "misleading."
            )
        )
    elif overall.discrimination is not None and overall.discrimination < DISCRIMINATION_BELOW:
        flags.append(
            _(
                "Weak discrimination (below 20): it barely separates stronger from weaker "
                "learners. The question may be wrong or misleading."
            )
        )
    if overall.efficiency is not None and overall.efficiency < EFFICIENCY_BELOW:
        flags.append(
            _(
                "Low discriminative efficiency (below 15%): it separates learners far less "
                "than its facility would allow. The question may be wrong or misleading."
            )
        )
    answered = {code: s for code, s in stats.by_language.items() if s.n}
    if len(answered) > 1:
        easiest = max(answered, key=lambda code: answered[code].facility)
        hardest = min(answered, key=lambda code: answered[code].facility)
        gap = answered[easiest].facility - answered[hardest].facility
        if gap > LANGUAGE_GAP_ABOVE:
            flags.append(
                _(
                    "Facility differs by %(gap)s between languages (%(easy)s %(easy_f)s, "
                    "%(hard)s %(hard_f)s): check the translation."
                )
                % {
                    "gap": _decimal(gap),
                    "easy": _in_sentence(language_names[easiest]),
                    "easy_f": _decimal(answered[easiest].facility),
                    "hard": _in_sentence(language_names[hardest]),
                    "hard_f": _decimal(answered[hardest].facility),
                }
            )
    # A gaps question's choices are each of a gap, and compared with that gap's right answer.
    correct = defaultdict(int)
    for choice in stats.choices:
        if choice.choice.is_correct:
            correct[choice.choice.gap] = max(correct[choice.choice.gap], choice.count)
    for choice in stats.choices:
        if choice.choice.is_correct:
            continue
        if choice.count == 0:
            flags.append(
                _("Nobody picked the wrong choice “%(choice)s”: it does not distract.")
                % {"choice": choice.choice.text}
            )
        elif choice.count > correct[choice.choice.gap]:
            flags.append(
                _(
                    "The wrong choice “%(choice)s” is picked more often than the right answer: "
                    "the question or its answer may be misleading."
                )
                % {"choice": choice.choice.text}
            )
    return flags


# Learners


@dataclass(frozen=True)
class LearnerRow:
    name: str
    attempts: int
    best: float | None
    last_score: float | None
    last_date: datetime | None


LEARNER_SORTS = {
    "name": "sort_name",
    "attempts": "attempt_count",
    "best": "best",
    "last_score": "last_score",
    "last_date": "last_date",
}


def learners(quiz: Quiz, report_filter: ReportFilter, *, sort: str = "-last_date"):
    """Signed-in learners with their completed attempts, as a lazy, sortable queryset.

    `sort` is a key of LEARNER_SORTS, with "-" for descending; ties go by name.
    """
    key = LEARNER_SORTS[sort.removeprefix("-")]
    direction = F(key).desc(nulls_last=True) if sort.startswith("-") else F(key).asc()
    learners = (
        get_user_model()
        .objects.filter(
            _in_report(quiz, report_filter, "attempts__"), attempts__completed_at__isnull=False
        )
        .only("username", "first_name", "last_name")
        .annotate(
            sort_name=Lower(
                Case(
                    When(first_name="", last_name="", then=F("username")),
                    default=Concat("first_name", Value(" "), "last_name"),
                    output_field=CharField(),
                )
            )
        )
    )
    if report_filter.first_only and report_filter.klass is None:
        # A learner has one first attempt at a quiz (Attempt.is_first): a row per attempt,
        # nothing to group, and the latest found through the index on (quiz, completed_at).
        # The completion date is never null here: newest first as the index walks back.
        percent = _percent("attempts__")
        if sort == "-last_date":
            direction = F(key).desc()
        return learners.annotate(
            attempt_count=Value(1),
            best=percent,
            last_score=percent,
            last_date=F("attempts__completed_at"),
        ).order_by(direction, "sort_name", "pk")
    by_learner = _learner_rollup(quiz, report_filter)
    if by_learner is not None:
        return _LearnerRows(by_learner, sort)
    completed = completed_for(quiz, report_filter)
    if report_filter.first_only:
        # One attempt per learner and assignment: the last is the best.
        last_score = Max(_percent("attempts__"))
    else:
        last = completed.filter(user=OuterRef("pk")).order_by("-completed_at", "-pk")
        last_score = Subquery(last.annotate(p=_percent()).values("p")[:1])
    return learners.annotate(
        attempt_count=Count("attempts"),
        best=Max(_percent("attempts__")),
        last_score=last_score,
        last_date=Max("attempts__completed_at"),
    ).order_by(direction, "sort_name", "pk")


def _learner_rollup(quiz: Quiz, report_filter: ReportFilter):
    """Where the learners' rollup gives the learners of all attempts, (the connection, and
    the quiz, practice and language of its rows); None where it doesn't: the first attempts
    (a row per attempt, `learners`), dates (the rollup is all-time), and wherever the
    attempts are scanned (`_rollup`)."""
    rollup = _rollup(quiz, report_filter)
    if (
        rollup is None
        or report_filter.first_only
        or report_filter.date_from is not None
        or report_filter.date_to not in (None, date.max)
    ):
        return None
    return rollup[0], quiz.pk, report_filter.with_practice, report_filter.language


# `learners`' sorts on the learners' rollup (its columns, the name from the account).
_SORT_NAME = (
    "lower(CASE WHEN u.first_name = '' AND u.last_name = '' THEN u.username "
    "ELSE u.first_name || ' ' || u.last_name END)"
)
_ROLLUP_SORTS = {
    "name": _SORT_NAME,
    "attempts": "r.attempts",
    "best": "r.best",
    "last_score": "r.last_score",
    "last_date": "r.last_date",
}


def _float(value: Decimal | None) -> float | None:
    return None if value is None else float(value)


class _LearnerRows:
    """`learners` from the learners' rollup: the accounts with the same annotations as the
    scan's queryset, in the same order; the paginator slices it, a page in one query that
    reads the page's rows (by the index on the last date for the default sort)."""

    def __init__(self, by_learner: tuple, sort: str):
        self.connection, *self.params = by_learner
        key = _ROLLUP_SORTS[sort.removeprefix("-")]
        self.order = f"{key} DESC NULLS LAST" if sort.startswith("-") else f"{key} ASC"

    def __getitem__(self, page: slice) -> list:
        start, stop = page.start or 0, page.stop
        sql = (
            "SELECT u.id, u.username, u.first_name, u.last_name, r.attempts, r.best, "
            "r.last_score, r.last_date FROM report_learner_rollup r "
            "JOIN auth_user u ON u.id = r.user_id "
            "WHERE r.quiz_id = %s AND r.practice = %s AND r.language = %s "
            f"ORDER BY {self.order}, {_SORT_NAME}, u.id LIMIT %s OFFSET %s"
        )
        limit = None if stop is None else stop - start
        with self.connection.cursor() as cursor:
            cursor.execute(sql, [*self.params, limit, start])
            rows = cursor.fetchall()
        learners = []
        for pk, username, first_name, last_name, attempts, best, last_score, last_date in rows:
            user = get_user_model()(
                pk=pk, username=username, first_name=first_name, last_name=last_name
            )
            user.attempt_count = attempts
            # Floats, as the scan's queryset gives them (`_percent`): the same numeric's.
            user.best, user.last_score = _float(best), _float(last_score)
            user.last_date = last_date
            learners.append(user)
        return learners

    def __iter__(self) -> Iterator:
        return iter(self[0:None])


@dataclass(frozen=True)
class LearnersOverview:
    signed_in: int
    anonymous: LearnerRow | None


def learners_overview(quiz: Quiz, report_filter: ReportFilter) -> LearnersOverview:
    """How many signed-in learners there are, and every anonymous learner together as
    one row (two queries; the row is None when there are none).
    """
    completed = completed_for(quiz, report_filter)
    anonymous = Q(user=None)
    rollup = _rollup(quiz, report_filter)
    by_learner = _learner_rollup(quiz, report_filter)
    if rollup is not None and (report_filter.first_only or by_learner is not None):
        # A learner has one first attempt at a quiz: its learners are its first attempts;
        # of all attempts, the learners are the rows of the learners' rollup.
        signed_in = (
            "coalesce(sum(n) FILTER (WHERE NOT anonymous), 0)::bigint"
            if by_learner is None
            else f"(SELECT coalesce(sum(n), 0)::bigint FROM {LEARNER_COUNTS} l "
            "WHERE quiz_id = %s AND practice = %s AND language = %s)"
        )
        ((signed_in, attempts, best),) = _rollup_rows(
            rollup,
            f"SELECT {signed_in}, coalesce(sum(n) FILTER (WHERE anonymous), 0)::bigint, "
            "max(score * 100.0 / max_score) FILTER (WHERE anonymous AND n > 0) "
            "FROM (SELECT anonymous, score, max_score, sum(n) AS n FROM {attempts} c "
            "WHERE {where} AND completed GROUP BY anonymous, score, max_score) g",
            [],
            first=[] if by_learner is None else by_learner[1:],
        )
        totals = {"signed_in": signed_in, "attempts": attempts, "best": best}
    else:
        totals = completed.aggregate(
            signed_in=Count("user", distinct=True),
            attempts=Count("pk", filter=anonymous),
            best=Max(_percent(), filter=anonymous),
        )
    if not totals["attempts"]:
        return LearnersOverview(signed_in=totals["signed_in"], anonymous=None)
    # The latest (the index on the quiz and the completion date).
    last = (
        completed.filter(anonymous)
        .order_by("-completed_at", "-pk")
        .annotate(p=_percent())
        .values_list("p", "completed_at")
        .first()
    )
    row = LearnerRow(
        name=_("Anonymous learners"),
        attempts=totals["attempts"],
        best=None if totals["best"] is None else float(totals["best"]),
        last_score=last[0],
        last_date=last[1],
    )
    return LearnersOverview(signed_in=totals["signed_in"], anonymous=row)


# Attempts, one by one


def learner_name(user) -> str:
    """A learner as the report names them: their name, or their username; anonymous
    learners are one unnamed crowd."""
    if user is None:
        return _("Anonymous learner")
    return user.get_full_name() or user.get_username()


def language_name(code: str) -> str:
    return str(dict(settings.LANGUAGES).get(code, code))


def attempt_kind_label(attempt: Attempt) -> str:
    if attempt.kind == AttemptKind.PRACTICE:
        return _("Practice")
    if attempt.kind == AttemptKind.PREVIEW:
        return _("Editor’s preview")
    if attempt.kind == AttemptKind.QUESTION:
        return _("One question")
    return _("First attempt") if attempt.is_first else _("Retry")


@dataclass(frozen=True)
class AttemptRow:
    """An attempt in the list, with its learner and kind in words."""

    attempt: Attempt
    learner: str
    kind: str
    language: str

    @classmethod
    def of(cls, attempt: Attempt) -> "AttemptRow":
        return cls(
            attempt=attempt,
            learner=learner_name(attempt.user),
            kind=attempt_kind_label(attempt),
            language=language_name(attempt.language),
        )


def attempts_list(quiz: Quiz, report_filter: ReportFilter) -> QuerySet[Attempt]:
    """The attempts the report counts (answered at least once; never a preview), newest
    first, with their learner: a lazy queryset, to paginate."""
    return (
        attempts_for(quiz, report_filter)
        .filter(_answered())
        .select_related("user")
        .only(
            "public_id",
            "kind",
            "is_first",
            "language",
            "started_at",
            "completed_at",
            "score",
            "max_score",
            "user__username",
            "user__first_name",
            "user__last_name",
        )
        .order_by("-started_at", "-pk")
    )


@dataclass(frozen=True)
class ShownText:
    """A text as the attempt showed it: its HTML and the language it is in."""

    html: str
    lang: str

    @classmethod
    def of(cls, text: Text) -> "ShownText":
        return cls(html=text.html, lang=text.language)


@dataclass(frozen=True)
class ReviewedChoice:
    text: ShownText
    is_correct: bool
    picked: bool
    right_position: int | None = None  # An ordering's item: where it belongs.
    # A matching question's left item: its own right item, and the one the learner picked.
    match: ShownText | None = None
    given: ShownText | None = None


@dataclass(frozen=True)
class ReviewedGap:
    """A gap of a gaps answer: the learner's answer in it (a choice's text, a text, a number
    as the attempt's language writes it), its score (0 to 1) and its right answers."""

    number: int
    given: ShownText
    score: float
    right: ShownText  # "256", "DDP / DistributedDataParallel".


@dataclass(frozen=True)
class ReviewedQuestion:
    number: int
    prompt: ShownText
    explanation: ShownText | None
    several: bool
    choices: tuple[ReviewedChoice, ...]  # In the order the attempt showed them.
    is_correct: bool | None  # None: not answered.
    response: str = ""  # A numerical answer's number, as the attempt's language writes it.
    credit: Decimal | None = None  # The answer's (0 to 1); None: not answered.
    # A calculated question's values drawn for the attempt, as its language writes them.
    values: tuple[tuple[str, str], ...] = ()
    gaps: tuple[ReviewedGap, ...] = ()  # A gaps answer's, in order.


@dataclass(frozen=True)
class AttemptReview:
    attempt: Attempt
    learner: str
    kind: str
    language: str
    questions: tuple[ReviewedQuestion, ...]

    @property
    def answered(self) -> int:
        return sum(1 for question in self.questions if question.is_correct is not None)


def _reviewed_choices(
    question, shown: tuple, picked: set[int], response: str
) -> tuple[ReviewedChoice, ...]:
    """A question's choices as the attempt showed them; an answered ordering's items in the
    learner's order, each with the position it belongs at; a matching question's left items,
    each with its right item and the learner's; none for a gaps question (`_reviewed_gaps`)."""
    if question.type.fills_prompt:
        return ()
    if isinstance(question.type, Matching):
        return tuple(
            ReviewedChoice(
                text=ShownText.of(left.text),
                is_correct=is_matched(left, given),
                picked=given is not None,
                match=ShownText.of(left.match),
                given=ShownText.of(given.match) if given is not None else None,
            )
            for left, given in learner_pairs(question, response)
        )
    if not isinstance(question.type, Ordering):
        return tuple(
            ReviewedChoice(
                text=ShownText.of(choice.text),
                is_correct=choice.is_correct,
                picked=choice.pk in picked,
            )
            for choice in shown
        )
    right = {choice.pk: position for position, choice in enumerate(question.choices, 1)}
    by_pk = {choice.pk: choice for choice in shown}
    given = [pk for pk in response_ids(response) if pk in by_pk] or list(by_pk)
    return tuple(
        ReviewedChoice(
            text=ShownText.of(by_pk[pk].text),
            is_correct=right[pk] == number,
            picked=bool(response),
            right_position=right[pk],
        )
        for number, pk in enumerate(given, 1)
    )


def _reviewed_gaps(question, response: str, picked: set[int]) -> tuple[ReviewedGap, ...]:
    """A gaps answer's gaps, as the active language (the attempt's) writes them."""
    if not question.type.fills_prompt:
        return ()
    return tuple(
        ReviewedGap(
            number=gap.number,
            given=(
                ShownText.of(gap.matched.text)
                if gap.is_choice and gap.matched is not None
                else ShownText(html=conditional_escape(gap.shown), lang=get_language())
            ),
            score=gap.score,
            right=ShownText(html=conditional_escape(right_answer(gap)), lang=get_language()),
        )
        for gap in gap_answers(question, response, picked)
    )


def attempt_review(*, quiz: Quiz, public_id, taught_by: int | None = None) -> AttemptReview | None:
    """One attempt at the quiz, any learner's (a preview too), with each question as it
    showed them, in the attempt's language: the picks, the verdicts and the right answers.
    Two queries (the attempt with its learner, its picks) and the kept content under the
    quiz's stamp; None when the quiz has no such attempt, or when it is not one of the
    learners of `taught_by`'s classes (see `_in_scope`).

    A finished attempt shows the questions it answered, so that a question added since is
    not part of it, and, when its time ran out, those it left unanswered (as many as it was
    scored out of); an unfinished one shows the questions it has yet to answer, unanswered.
    """
    attempt = (
        Attempt.objects.filter(_in_scope(taught_by), quiz=quiz, public_id=public_id)
        .select_related("user")
        .first()
    )
    if attempt is None:
        return None
    graded: dict[int, Decimal] = {}
    responses: dict[int, str] = {}
    picked: dict[int, set[int]] = defaultdict(set)
    rows = attempt.answers.order_by().values_list(
        "question_id", "credit", "response", "picks__choice"
    )
    for question_id, credit, response, choice_id in rows:
        graded[question_id] = credit
        responses[question_id] = response
        picked[question_id].add(choice_id)
    content = quiz_content(quiz_id=quiz.pk, updated_at=quiz.updated_at)
    questions = content.questions_among(attempt.question_ids)
    if attempt.completed_at is not None:
        unanswered = (attempt.max_score or 0) - len(graded)  # Its time ran out before them.
        shown = []
        for question in questions:
            if question.pk in graded or unanswered > 0:
                unanswered -= question.pk not in graded
                shown.append(question)
        questions = tuple(shown)
    questions = tuple(drawn(question, attempt) for question in questions)
    with translation.override(attempt.language):
        reviewed = tuple(
            ReviewedQuestion(
                number=number,
                prompt=ShownText.of(question.prompt),
                explanation=ShownText.of(question.explanation) if question.explanation else None,
                several=question.type.several,
                choices=_reviewed_choices(
                    question,
                    choices_as_shown(content, question, attempt),
                    picked[question.pk],
                    responses.get(question.pk, ""),
                ),
                is_correct=graded[question.pk] == 1 if question.pk in graded else None,
                credit=graded.get(question.pk),
                response=(
                    question.type.shown_response(responses[question.pk])
                    if responses.get(question.pk) and question.type.typed
                    else ""
                ),
                values=tuple((name, number_text(value)) for name, value in question.values),
                gaps=_reviewed_gaps(question, responses.get(question.pk, ""), picked[question.pk]),
            )
            for number, question in enumerate(questions, 1)
        )
    return AttemptReview(
        attempt=attempt,
        learner=learner_name(attempt.user),
        kind=attempt_kind_label(attempt),
        language=language_name(attempt.language),
        questions=reviewed,
    )


# Quizzes overview


def quiz_for_report(*, slug: str) -> Quiz | None:
    """Any quiz, published or not: instructors report on them all."""
    return Quiz.objects.filter(slug=slug).first()


def quizzes_overview(report_filter: ReportFilter = DEFAULT_FILTER) -> QuerySet[Quiz]:
    """Every quiz with its started (answered at least once) and completed attempts and mean
    score (one query), of the attempts a quiz's report counts by default (the first of each
    learner, no practice, no preview): the index and the report agree. An instructor
    without the site-wide permission (`taught_by`) sees the quizzes assigned to their
    classes, and their learners' attempts."""
    kept = _in_report(None, report_filter, "attempts__") & Q(_answered("attempts__"))
    completed = kept & Q(attempts__completed_at__isnull=False, attempts__max_score__gt=0)
    quizzes = Quiz.objects.all()
    if report_filter.taught_by is not None:
        assigned = Assignment.objects.filter(
            quiz=OuterRef("pk"), klass__instructors=report_filter.taught_by
        )
        quizzes = quizzes.filter(Exists(assigned))
    return quizzes.annotate(
        started=Count("attempts", filter=kept),
        completed=Count("attempts", filter=completed),
        mean=Avg(_percent("attempts__"), filter=completed),
    ).order_by("title", "pk")


# Who reads which report


def teaches_a_class(*, user) -> bool:
    """Whether the user is a class's instructor: they may read their learners' reports."""
    return Class.objects.filter(instructors=user).exists()


def class_for_report(*, class_id: int, taught_by: int | None) -> Class | None:
    """The class whose report is asked for, if the reader may see it: any class with the
    site-wide permission (`taught_by` None), else one they teach."""
    classes = (
        Class.objects.all() if taught_by is None else Class.objects.filter(instructors=taught_by)
    )
    return classes.filter(pk=class_id).first()


# CSV rows


def answer_picks(
    quiz: Quiz, report_filter: ReportFilter, *, several: bool = False
) -> Iterator[tuple]:
    """Every pick of every answer of every completed attempt, in attempt and question order,
    as named rows (attempt_id, username, first_name, last_name, kind, is_first, started_at,
    completed_at, language, score, max_score, site, question_id, picked, is_correct, credit,
    response), read lazily
    so memory stays flat however many attempts there are. An answer that picked several
    choices gives a row per pick: with `several` (the quiz has multiple-choice questions),
    the picks of the answers without an `Answer.choice` are joined, and only theirs.
    """
    answers = _completed_answers(quiz, report_filter)
    choice, order = F("choice_id"), ["attempt__completed_at", "attempt_id", "question_id"]
    if several:
        answers = answers.annotate(
            several=FilteredRelation("picks", condition=Q(choice__isnull=True))
        )
        choice, order = Coalesce("choice_id", "several__choice_id"), [*order, "picked"]
    return (
        answers.annotate(
            username=F("attempt__user__username"),
            first_name=F("attempt__user__first_name"),
            last_name=F("attempt__user__last_name"),
            kind=F("attempt__kind"),
            is_first=F("attempt__is_first"),
            started_at=F("attempt__started_at"),
            completed_at=F("attempt__completed_at"),
            language=F("attempt__language"),
            score=F("attempt__score"),
            max_score=F("attempt__max_score"),
            site=F("attempt__embedded_in__origin"),
            picked=choice,
        )
        .order_by(*order)
        .values_list(
            "attempt_id",
            "username",
            "first_name",
            "last_name",
            "kind",
            "is_first",
            "started_at",
            "completed_at",
            "language",
            "score",
            "max_score",
            "site",
            "question_id",
            "picked",
            "is_correct",
            "credit",
            "response",
            named=True,
        )
        .iterator(chunk_size=2000)
    )
