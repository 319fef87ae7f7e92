"""The learner pages' kept parts: rendered once, shared by every learner who sees the same.

A part is a frozen dataclass whose fields are at once everything its template is given (the
template renders with those fields and nothing else, but the CSRF token's mark) and its key
in the cache: the part's name and a digest of its fields' values. So a part can't be shared
by two learners who would see it differ: what tells them apart is a field, hence in the key.
A template that read a variable the part has no field for gets nothing (and
tests/learning/test_parts.py fails); a field the template doesn't show fails the same test.

Two things differ between learners who see the same and are not fields: the attempt's id
and the CSRF token. A part renders with `ATTEMPT_ID` where the id goes and `TOKEN_MARK`
where the token goes; `kept` and `made` fill in each learner's own.

A third is kept apart: the order of a question's choices, which a quiz that shuffles draws
per attempt. Where the kind's templates mark each choice as a block of its own
(`Kind.marks_choices`, `{% choice_mark %}` in templates/quizzes/_choice_inputs.html and
_choice_review.html), the part is kept with its choices in the question's own order
(`Part.shared`) and each learner's copy moves the blocks into their attempt's order
(`Part.arranged`), so that one kept part serves every order.

A field's value stands in the key through `canonical`: kept content (quizzes/snapshots.py,
frozen dataclasses) by its values, a quiz by its id and stamp (its content changes only with
its stamp), what the context processors give a whole page by what a page can show of it.
A value with no stable form (a form, a signed-in user) can't be in a key: `Unkeepable`.
"""

import dataclasses
import re
from collections.abc import Mapping
from datetime import date, datetime
from decimal import Decimal
from enum import Enum
from hashlib import blake2b
from typing import Any, ClassVar
from uuid import UUID

from django.contrib.auth.context_processors import PermWrapper
from django.contrib.auth.models import AnonymousUser
from django.contrib.messages.storage.base import BaseStorage, Message
from django.core.cache import caches
from django.http import HttpRequest
from django.template import engines
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.functional import Promise
from django.utils.safestring import SafeString, mark_safe

from quizzes.kinds.base import CHOICES_END
from quizzes.learning.forms import AnswerForm
from quizzes.learning.selectors import QuizStatus
from quizzes.models import score_percent
from quizzes.snapshots import ChoiceContent, GuidePathContent, QuestionContent, QuizContent, Text
from quizzes.templatetags.embedding import embedded

# Where the attempt's id and the CSRF token go in a kept part: nothing else in it differs
# between two learners who see the same of the same quiz. The quiz page kept for anonymous
# learners has a mark where their status and Start go.
ATTEMPT_ID = UUID(int=0)
TOKEN_MARK = "\x00token\x00"
ACTIONS_MARK = mark_safe("\x00actions\x00")

LIFETIME = 3600  # Seconds; a part's content moves its key anyway.

# Where each choice's block starts in a part kept in the question's order, and where the last
# one ends (quizzes/kinds/base.py; quizzes/learning/templatetags/kept.py).
_CHOICE_LIST = re.compile("\x00choice:\\d+\x00.*?\x00choices\x00", re.DOTALL)
_CHOICE_BLOCK = re.compile("\x00choice:(\\d+)\x00")
_AT_PLACE = re.compile("\x00place:(\\d+)\x00")
# Where a kept part has the parts it holds that differ more than it does (an answer's review,
# the results' lines): each learner's copy puts them in, each kept on its own.
INNER_MARK = "\x00inner:{}\x00"


# Kept content is shared and never changes (quizzes/snapshots.py): each object's digest is
# worked out once, here, under its id, with the object itself so that the id is not reused.
_KEPT_CONTENT = frozenset({QuestionContent, ChoiceContent, GuidePathContent, Text})
_content_digests: dict[int, tuple[object, str]] = {}
_CONTENT_DIGESTS_MAX = 50_000


class Unkeepable(TypeError):
    """A value with no stable form for a key: a part holding it is made anew, never kept."""


def canonical(value: Any) -> Any:
    """A value made of None, booleans, numbers, strings and tuples, whose repr is the same for
    every value that shows the same, in every process."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is tuple:
        return tuple(map(canonical, value))
    if kind in _KEPT_CONTENT:
        return (kind.__qualname__, _content_digest(value))
    if kind in _CANONICAL_FIELDS:  # Another frozen dataclass seen before: a part's field.
        return _canonical_fields(value)
    if value is None or isinstance(value, bool | int | float | UUID):
        return value
    if isinstance(value, Enum):
        return canonical(value.value)
    if isinstance(value, str):
        return str.__str__(value)  # A SafeString or a TextChoices member as its text.
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Decimal):  # Exact, as its digits.
        return ("decimal", str(value))
    if isinstance(value, Promise):  # A lazy translation: as the active language has it.
        return str(value)
    if isinstance(value, QuizContent):  # Its content changes only with its stamp.
        return ("QuizContent", value.pk, value.updated_at.isoformat())
    if isinstance(value, tuple(_KEPT_CONTENT)):
        return (type(value).__qualname__, _content_digest(value))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _canonical_fields(value)
    if isinstance(value, tuple | list):
        return tuple(canonical(item) for item in value)
    if isinstance(value, frozenset | set):
        return ("set",) + tuple(sorted(canonical(item) for item in value))
    if isinstance(value, Mapping):
        return ("map",) + tuple((key, canonical(item)) for key, item in value.items())
    # What the context processors give a whole page: see QuizPage.
    if isinstance(value, HttpRequest):  # The page shows its address, and no more of it.
        return ("request", value.build_absolute_uri())
    if isinstance(value, AnonymousUser):  # Also through the request's lazy user.
        return "anonymous"
    if isinstance(value, PermWrapper):
        return ("perms", canonical(value.user))
    if isinstance(value, BaseStorage):
        if value:  # Would be marked as seen by the first learner to see the page.
            raise Unkeepable("a page with messages is made anew")
        return ()
    if isinstance(value, Message):
        return ("message", value.level, str(value.message), value.extra_tags)
    raise Unkeepable(f"{type(value).__qualname__} has no stable form for a kept part's key")


_PLAIN = frozenset({str, int, bool, float, type(None), UUID})
_CANONICAL_FIELDS: dict[type, tuple[str, ...]] = {}  # A frozen dataclass's fields' names.


def _canonical_fields(value: Any) -> tuple:
    kind = type(value)
    names = _CANONICAL_FIELDS.get(kind)
    if names is None:
        if not kind.__dataclass_params__.frozen:
            raise Unkeepable(f"{kind.__qualname__} is not frozen")
        names = _CANONICAL_FIELDS[kind] = tuple(field.name for field in dataclasses.fields(kind))
    return (kind.__qualname__,) + tuple(canonical(getattr(value, name)) for name in names)


def _digest(value: Any) -> str:
    return blake2b(repr(canonical(value)).encode(), digest_size=16).hexdigest()


def _content_digest(value: Any) -> str:
    found = _content_digests.get(id(value))
    if found is not None and found[0] is value:
        return found[1]
    form = _canonical_fields(value)
    if isinstance(value, Text):  # Its HTML too, which the renderer's code makes from its fields.
        form += (value.html_by_language(),)
    digest = blake2b(repr(form).encode(), digest_size=16).hexdigest()
    if len(_content_digests) >= _CONTENT_DIGESTS_MAX:
        _content_digests.clear()
    _content_digests[id(value)] = (value, digest)
    return digest


@dataclasses.dataclass(frozen=True)
class Part:
    """A kept part: `template`, rendered in `language` with the fields as its context."""

    name: ClassVar[str]
    template: ClassVar[str]
    cache_alias: ClassVar[str] = "default"

    language: str

    @property
    def key(self) -> str:
        """The part's name and a digest of its fields (memcached-safe: short, plain ASCII); an
        embed page's parts apart, as their links are the embed's (quizzes/embed)."""
        return f"part:{'embed:' if embedded() else ''}{self.name}:{_digest(self)}"

    def context(self) -> dict[str, Any]:
        """The fields by name, as they are (not copied, unlike `dataclasses.asdict`)."""
        return {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}

    def render(self) -> str:
        """The HTML, with `ATTEMPT_ID` and `TOKEN_MARK` where the id and the token go."""
        return self.arranged(self.marked())

    def marked(self) -> str:
        """The HTML as kept: its choices' blocks marked, if its templates mark them."""
        with translation.override(self.language):
            return render_to_string(self.template, self.context() | {"csrf_token": TOKEN_MARK})

    def shared(self) -> "Part":
        """The part as it is kept, for every learner who sees the same of it."""
        return self

    def arranged(self, html: str) -> str:
        """The kept HTML of `self.shared()` as this part shows it."""
        return html

    def __str__(self) -> SafeString:
        # A part inside another's template ({{ line }}): kept too; the outer part fills in
        # the id and the token.
        return mark_safe(_kept_html(self))


def _kept_html(part: Part) -> str:
    shared = part.shared()
    kept_in = caches[part.cache_alias]
    key = shared.key
    if (html := kept_in.get(key)) is None:
        html = shared.marked()
        kept_in.set(key, html, LIFETIME)
    return part.arranged(html)


def kept(part: Part, *, attempt_id: UUID | None = None, token: str = "") -> SafeString:
    """`part`, kept in its cache under its key, with the attempt's id and the token filled in."""
    return _filled(_kept_html(part), attempt_id, token)


def made(part: Part, *, attempt_id: UUID | None = None, token: str = "") -> SafeString:
    """`part` rendered anew, not kept: for what no other learner will see (an error, a notice,
    a signed-in user's page)."""
    return _filled(part.render(), attempt_id, token)


def _filled(html: str, attempt_id: UUID | None, token: str) -> SafeString:
    if attempt_id is not None:
        html = html.replace(str(ATTEMPT_ID), str(attempt_id))
    return mark_safe(html.replace(TOKEN_MARK, token))


# The quiz page.


@dataclasses.dataclass(frozen=True)
class QuizIntro(Part):
    """templates/quizzes/_quiz_intro.html: the quiz's title, description and facts."""

    name = "quiz-intro"
    template = "quizzes/_quiz_intro.html"

    quiz: QuizContent


@dataclasses.dataclass(frozen=True)
class QuizPreview(Part):
    """templates/quizzes/_quiz_preview.html: the questions' prompts, never their answers."""

    name = "quiz-preview"
    template = "quizzes/_quiz_preview.html"

    quiz: QuizContent


@dataclasses.dataclass(frozen=True)
class Resume:
    """The attempt in progress, as the quiz page shows it (`ATTEMPT_ID` for its id)."""

    next_number: int
    question_count: int

    def get_absolute_url(self) -> str:
        return reverse("question", kwargs={"public_id": ATTEMPT_ID, "number": self.next_number})


@dataclasses.dataclass(frozen=True)
class StatusShown:
    """What templates/quizzes/_quiz_status.html shows of a `QuizStatus`, by the same names:
    the same for every learner at the same point."""

    state: str
    is_done: bool
    passed: bool
    best: int | None
    last: int | None
    in_progress: Resume | None

    @classmethod
    def of(cls, status: QuizStatus) -> "StatusShown":
        resume = status.in_progress
        return cls(
            state=status.state,
            is_done=status.is_done,
            passed=status.passed,
            best=status.best,
            last=status.last,
            in_progress=resume and Resume(resume.next_number, resume.question_count),
        )


@dataclasses.dataclass(frozen=True)
class QuizActions(Part):
    """templates/quizzes/_quiz_actions.html: the learner's status, and Start or Resume."""

    name = "quiz-actions"
    template = "quizzes/_quiz_actions.html"

    quiz: QuizContent
    status: StatusShown


@dataclasses.dataclass(frozen=True)
class QuizPage(Part):
    """templates/quizzes/quiz_detail.html, the whole page: its parts, and what the context
    processors give base.html (the names below them), rendered without the request.

    Kept only for an anonymous learner with no message to see, at an address without a
    query (which anyone can vary), in the small cache for pages: a visitor can vary the
    address without end (the Host header's port), and then only churns that one. Of the
    request, a kept page may show only what its address tells (`canonical`)."""

    name = "quiz-page"
    template = "quizzes/quiz_detail.html"
    cache_alias = "pages"

    quiz: QuizContent
    intro: QuizIntro
    preview: QuizPreview
    actions: str  # Filled in, or ACTIONS_MARK in a kept page.
    # From the context processors (settings.TEMPLATES), for base.html.
    request: HttpRequest
    user: Any
    perms: Any
    messages: Any
    LANGUAGE_CODE: str
    language_links: list[dict]
    has_attempts: bool

    @classmethod
    def of(cls, request: HttpRequest, **fields: Any) -> "QuizPage":
        """The page with what the context processors give for `request`, of what it shows."""
        shown = {field.name for field in dataclasses.fields(cls)}
        given: dict[str, Any] = {}
        for processor in engines["django"].engine.template_context_processors:
            given |= processor(request)
        return cls(**{name: value for name, value in given.items() if name in shown}, **fields)


# An attempt's pages.


class _ShowsChoices:
    """A part that shows a question's choices (`question`, `choices` in the attempt's order,
    `picked` among them): kept in the question's order when its kind's templates mark each
    choice, and arranged into the attempt's."""

    def shared(self) -> Part:
        question = self.question
        if not question.type.marks_choices or self.choices in ((), question.choices):
            return self
        fields = {"choices": question.choices}
        if "picked" in self.__dataclass_fields__:
            picked = {choice.pk for choice in self.picked}
            fields["picked"] = tuple(choice for choice in question.choices if choice.pk in picked)
        return dataclasses.replace(self, **fields)

    def arranged(self, html: str) -> str:
        if CHOICES_END not in html:
            return html
        order = [choice.pk for choice in self.choices]
        return _CHOICE_LIST.sub(lambda found: _in_order(found.group(), order), html)


def _in_order(marked: str, order: list[int]) -> str:
    """A marked list of choices' blocks, unmarked, in `order` (their ids): those of `order`
    it holds (a gaps question has a list for each gap)."""
    pieces = _CHOICE_BLOCK.split(marked.removesuffix(CHOICES_END))
    blocks = dict(zip(map(int, pieces[1::2]), pieces[2::2], strict=True))
    shown = [blocks[pk] for pk in order if pk in blocks]
    return "".join(_at_place(block, place) for place, block in enumerate(shown, 1))


def _at_place(block: str, place: int) -> str:
    """The block as it reads at `place`: what it says there only, and nothing of the others."""
    if "\x00place:" not in block:
        return block
    return _AT_PLACE.sub(lambda found: " selected" if found[1] == str(place) else "", block)


class _HoldsParts:
    """A part whose fields `inner` hold other parts (each kept on its own), or tuples of
    them: kept with a mark in place of each, which each learner's copy fills in with the
    inner parts' kept HTML. So that it is shared by every learner who sees the same of it
    but for those parts (the results of two attempts with the same score, a question's
    feedback but for the review of the answer)."""

    inner: ClassVar[tuple[str, ...]]

    def shared(self) -> Part:
        shared = super().shared()
        marks = {
            name: mark_safe(INNER_MARK.format(name))
            for name in self.inner
            if getattr(self, name) is not None
        }
        for name, mark in marks.items():
            if isinstance(getattr(self, name), tuple):
                marks[name] = (mark,)
        return dataclasses.replace(shared, **marks)

    def arranged(self, html: str) -> str:
        html = super().arranged(html)
        for name in self.inner:
            mark = INNER_MARK.format(name)
            if mark in html:
                value = getattr(self, name)
                parts = value if isinstance(value, tuple) else (value,)
                html = html.replace(mark, "".join(_kept_html(part) for part in parts))
        return html


@dataclasses.dataclass(frozen=True)
class AnswerReview(_ShowsChoices, Part):
    """templates/quizzes/_answer_review.html: the review of an answer (its kind's) and the
    question's explanation, under its feedback and in the results, which share it."""

    name = "answer-review"
    template = "quizzes/_answer_review.html"

    question: QuestionContent
    choices: tuple[ChoiceContent, ...]  # In the attempt's order.
    picked: tuple[ChoiceContent, ...]
    response: str | None  # A typed answer (Answer.response).
    is_correct: bool


@dataclasses.dataclass(frozen=True)
class StepPart(_HoldsParts, _ShowsChoices, Part):
    """templates/quizzes/_step.html for a question of an attempt: its form, or its feedback
    once answered, or why it takes no answer. A refused answer's part (its `form`'s error,
    the `checked` picks ticked again) or one with a `notice` is made anew."""

    name = "step-part"
    template = "quizzes/_step.html"
    inner = ("review",)

    quiz: QuizContent
    attempt_kind: str
    step_title: str
    number: int
    total: int
    answered_count: int
    question: QuestionContent
    choices: tuple[ChoiceContent, ...]  # In the attempt's order; none once answered.
    answered: bool
    review: AnswerReview | None  # Once answered.
    is_correct: bool
    credit: Decimal  # The answer's (Answer.credit): above 0 but not 1, it is partly right.
    closed: str | None
    next_url: str  # With ATTEMPT_ID.
    # An assignment's attempt whose review is not shown yet: when it shows (ReviewShown).
    review_later: str | None = None
    notice: str | None = None
    form: AnswerForm | None = None
    checked: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class ScoredAttempt:
    """What the results show of the attempt (`ATTEMPT_ID` for its id)."""

    kind: str
    score: Decimal | None  # The sum of its answers' credits.
    max_score: int | None

    public_id: ClassVar[UUID] = ATTEMPT_ID

    @property
    def percent(self) -> int | None:
        return score_percent(self.score, self.max_score)


@dataclasses.dataclass(frozen=True)
class SummaryItem(Part):
    """templates/quizzes/_summary_item.html: a question's line in the results."""

    name = "summary-item"
    template = "quizzes/_summary_item.html"

    number: int
    question: QuestionContent
    is_correct: bool
    credit: Decimal
    mistakes_only: bool


@dataclasses.dataclass(frozen=True)
class ReviewItem(_HoldsParts, Part):
    """templates/quizzes/_review_item.html: a question's review in the results."""

    name = "review-item"
    template = "quizzes/_review_item.html"
    inner = ("review",)

    number: int
    question: QuestionContent
    review: AnswerReview
    is_correct: bool
    credit: Decimal


@dataclasses.dataclass(frozen=True)
class ResultsPart(_HoldsParts, Part):
    """templates/quizzes/_results.html: the score, a line per question and the reviews (each a
    part of its own, kept and shared apart)."""

    name = "results"
    template = "quizzes/_results.html"
    inner = ("summary", "review")

    quiz: QuizContent
    attempt: ScoredAttempt
    passed: bool
    mistakes: int
    mistakes_only: bool
    summary: tuple[SummaryItem, ...]
    review: tuple[ReviewItem, ...]
    # An assignment's attempt: its id (Retry starts the assignment again), whether the server
    # submitted it when its time ran out, and when its review shows if not yet.
    assignment_id: int | None = None
    timed_out: bool = False
    review_later: str | None = None
    # In a frame, the site whose page framed the attempt (LearnerAttempt.site): Retry says it.
    site: str = ""


PARTS: tuple[type[Part], ...] = (
    QuizIntro,
    QuizPreview,
    QuizActions,
    QuizPage,
    StepPart,
    AnswerReview,
    SummaryItem,
    ReviewItem,
    ResultsPart,
)
