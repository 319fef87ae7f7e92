"""The score reports' CSV exports: each a generator of rows, the header first.

Every label is translated when the export is made, not when its rows are read: the rows are
streamed after the view has returned, when the request's language is no longer active.
"""

from collections.abc import Iterator
from itertools import groupby
from operator import attrgetter

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _

from quizzes.models import AttemptKind, Question, Quiz
from quizzes.reports import selectors as reports


def _learner_name(username: str | None, first_name: str | None, last_name: str | None) -> str:
    if username is None:
        return ""
    return f"{first_name} {last_name}".strip() or username


def _text_in(obj, field: str, language: str) -> str:
    """A translated field in `language`, or its fallback: as an attempt in that language
    showed it."""
    with translation.override(language):
        return getattr(obj, field)


def attempt_rows(*, quiz: Quiz, report_filter: reports.ReportFilter) -> Iterator[list]:
    """A row per completed attempt: the learner, its kind, whether it is their first, how long
    it took, the site whose page framed it (quizzes/embed; empty on the site's pages), the
    score (a sum of credits: 2.5), and each question's picks (joined with " | " when there
    are several) or, for a kind not answered by picks, its response as the kind writes it
    (`Kind.written`: the number typed, the items in order, each gap…), in the attempt's
    language, its result and credit (0.5)."""
    questions = list(Question.objects.filter(quiz=quiz).prefetch_related("choices"))
    choices = [choice for question in questions for choice in question.choices.all()]
    texts, matches = (
        {
            code: {choice.pk: _text_in(choice, field, code) for choice in choices}
            for code, _name in settings.LANGUAGES
        }
        for field in ("text", "match")
    )
    free = {question.pk: question for question in questions if not question.type.by_picks}
    written: dict[tuple[int, str, str], str] = {}  # A few responses, many attempts.
    columns = {question.pk: index for index, question in enumerate(questions)}
    anonymous, right, wrong, yes, no = _("Anonymous"), _("right"), _("wrong"), _("yes"), _("no")
    partly = _("partly right")
    kinds = {kind.value: str(kind.label) for kind in AttemptKind}
    header = [
        _("Learner"),
        _("Completed at"),
        _("Language"),
        _("Score"),
        _("Out of"),
        _("Percent"),
        _("Kind"),
        _("First attempt"),
        _("Duration (seconds)"),
        _("Embedded in"),
    ]
    for number in range(1, len(questions) + 1):
        header += [
            _("Question %(number)s choice") % {"number": number},
            _("Question %(number)s result") % {"number": number},
            _("Question %(number)s credit") % {"number": number},
        ]
    several = any(question.type.several for question in questions)
    picks = reports.answer_picks(quiz, report_filter, several=several)

    def rows() -> Iterator[list]:
        yield header
        for _attempt, attempt_picks in groupby(picks, key=attrgetter("attempt_id")):
            cells = [""] * (3 * len(questions))
            for pick in attempt_picks:
                index = columns.get(pick.question_id)
                if index is not None:
                    language = pick.language if pick.language in texts else settings.LANGUAGE_CODE
                    shown = texts[language]
                    # Its answer is its response, not its picks; an answer recorded without
                    # one (seedattempts writes only the pick) is written by its pick.
                    if pick.question_id in free and pick.response:
                        key = (pick.question_id, pick.response, language)
                        if key not in written:
                            question = free[pick.question_id]
                            with translation.override(language):
                                written[key] = question.type.written(
                                    question, pick.response, shown, matches[language]
                                )
                        cells[3 * index] = written[key]
                    else:
                        text = shown.get(pick.picked, "")
                        cells[3 * index] = (
                            f"{cells[3 * index]} | {text}" if cells[3 * index] else text
                        )
                    cells[3 * index + 1] = (
                        right if pick.is_correct else partly if pick.credit else wrong
                    )
                    cells[3 * index + 2] = pick.credit
            yield [
                _learner_name(pick.username, pick.first_name, pick.last_name) or anonymous,
                pick.completed_at.isoformat(timespec="seconds"),
                pick.language,
                pick.score,
                pick.max_score,
                float(round(100 * pick.score / pick.max_score, 1)) if pick.max_score else None,
                kinds.get(pick.kind, pick.kind),
                yes if pick.is_first else no,
                round((pick.completed_at - pick.started_at).total_seconds()),
                pick.site or "",
                *cells,
            ]

    return rows()


def question_rows(*, quiz: Quiz, report_filter: reports.ReportFilter) -> Iterator[list]:
    """A row per question: its item analysis, overall and per language, its choices, and
    for a quiz with questions answered by typing their most frequent wrong answers (each
    with its count, overall and per language); a gaps question's choices and wrong answers
    named by their gap's number, "(1) 32"; the prompts and choices in the attempts'
    language when the filter keeps one language, else in the export's."""
    items = reports.item_analysis(quiz, report_filter)
    language = report_filter.language or translation.get_language()
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
    wrong_shown = max((len(item.wrong_responses) for item in items.questions), default=0)
    for number in range(1, wrong_shown + 1):
        header += [
            _("Wrong answer %(number)s") % {"number": number},
            _("Wrong answer %(number)s count") % {"number": number},
            *(
                _("Wrong answer %(number)s (%(language)s)") % {"number": number, "language": code}
                for code, _name in items.languages
            ),
        ]
    yes, no = _("yes"), _("no")
    rows = [header]
    for number, item in enumerate(items.questions, 1):
        row = [
            number,
            _text_in(item.question, "prompt", language),
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
            text = _text_in(choice.choice, "text", language)
            row += [
                f"({choice.choice.gap}) {text}" if choice.choice.gap else text,
                yes if choice.choice.is_correct else no,
                choice.count,
                choice.share,
            ]
        if wrong_shown:
            row += [""] * 4 * (choices - len(item.choices))
            for wrong in item.wrong_responses:
                row += [wrong.shown, wrong.count, *(n for _code, n in wrong.by_language)]
            row += [""] * (2 + len(items.languages)) * (wrong_shown - len(item.wrong_responses))
        rows.append(row)
    return iter(rows)
