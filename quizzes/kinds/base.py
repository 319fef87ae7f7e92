"""What every kind of question says of itself: the interface of quizzes/kinds/.

A kind is one module with one `Kind` subclass, listed in the registry
(quizzes/kinds/__init__.py). It says, as Moodle's question types do
(question/type/<name>/questiontype.php and question.php):

- how it is edited: `problems`, what is wrong with its choices as an editor left them
  (the admin, the quiz file and every import ask it);
  and `value_problems`, what is wrong with their values, for a kind whose choices are
  values (numerical) or pairs (matching); `texts_optional`, whether a choice may have no
  text (a matching question's distractor); `gap_problems`, what is wrong with the gaps
  of a gaps question's prompt and choices;
- how it is answered: `form_field`, the form field of the learner's page and its widget
  (`input_template`), `picked`, the picks in its cleaned value, and `response`, what else
  of it is stored (a number typed, as `Answer.response`); an answer is stored as its picks
  (Answer, AnswerChoice) and its response; `by_picks` says whether the picks are the whole
  answer (`services.answers_regrade` regrades those in SQL, the others by `picked` again);
- how a response is graded: `grade`, a score from 0 to 1 (1 is right), and `accepts`,
  whether a response has the shape the kind takes at all;
- its feedback: `review_template`, the answer's review under the question; `fills_prompt`,
  whether its inputs sit in the prompt (gaps), which its `input_template` then shows;
- what the reports count: `several`, whether one answer holds several picks (the
  widgets and reviews say so too), and `typed`, whether it is answered by typing (the
  reports list its most frequent wrong responses);
- how its choices are shown: `keeps_choice_order`, whether they stay in their order even
  in a quiz that shuffles choices, and `shuffles_always`, whether they are shuffled even in
  a quiz that doesn't (an ordering's items, never shown in their right order);
  `marks_choices`, whether its templates show each choice as a block of its own, marked
  (`{% choice_mark %}`), that the learner pages' kept parts move into any attempt's order
  (and what a block says of its place, marked with `AT_PLACE_MARK`);
- how the file formats read and write it: `gift_claims`, `gift_read`, `gift_write`,
  `moodle_type`, `moodle_penalty`, `moodle_prompt`, `moodle_read`, `moodle_write`,
  `exported_as`.

Kinds know no model: they see the snapshots of quizzes/snapshots.py and the quiz-file
dicts of quizzes/interchange/ by their attributes and keys, so that the models, the
subsystems and the formats can all import them.
"""

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol
from xml.etree import ElementTree as ET

from django import forms
from django.utils.functional import Promise

# Where each choice's block starts in a list of choices a kind's template marks
# (`marks_choices`), and where the list's last block ends: the learner pages' kept parts
# (quizzes/learning/parts.py) move the blocks into an attempt's order and take the marks out.
CHOICE_MARK = "\x00choice:{}\x00"
CHOICES_END = "\x00choices\x00"
# In a marked block, what it says only at the place N the block lands at (" selected" on an
# ordering item's position N): taken out at every other place.
AT_PLACE_MARK = "\x00place:{}\x00"


@dataclass(frozen=True)
class GradedQuestion:
    """A question as its kind grades it away from the learner's pages (a regrade, the
    reports' gaps): what a snapshot's QuestionContent has of it for grading, its choices
    any objects with a choice's attributes."""

    choices: tuple
    kind: str
    grading: str
    partial_credit: bool
    case_sensitive: bool
    ignore_accents: bool
    gaps: tuple[str, ...]
    pk: int | None = None

    @classmethod
    def of(cls, question, choices: Iterable) -> "GradedQuestion":
        """`question` (a Question, by its attributes) with these choices."""
        return cls(
            choices=tuple(choices),
            kind=question.kind,
            grading=question.grading,
            partial_credit=question.partial_credit,
            case_sensitive=question.case_sensitive,
            ignore_accents=question.ignore_accents,
            gaps=tuple(question.gaps),
            pk=question.pk,
        )


@dataclass(frozen=True)
class EditedChoice:
    """A choice as an editor left it, for `Kind.value_problems`: its text in each language
    ({language: text}), its tolerance (a Decimal, or None where none was given), its
    right item in each language (a matching question's pair), whether it is correct and
    its gap (a gaps question's, from 1)."""

    texts: dict[str, str]
    tolerance: object = None
    matches: dict[str, str] = field(default_factory=dict)
    correct: bool = False
    gap: int = 0


def posted_id(text: str) -> int | None:
    """A choice id as posted or kept ("12"), or None for what is none (not ASCII digits, or
    past any id a database gives: int() refuses a string of thousands of digits)."""
    return int(text) if text.isascii() and text.isdecimal() and len(text) <= 18 else None


@dataclass(frozen=True)
class Read:
    """What a file format's reader made of a question's answers: the quiz-file fields they
    give (`kind`, `choices`), or the `problem` that leaves the question out; `warnings`
    say what was lost on the way."""

    fields: dict = field(default_factory=dict)
    problem: str = ""
    warnings: tuple[str, ...] = ()


class GiftReading(Protocol):
    """What the GIFT reader offers a kind: `text(source, inherited_format)` is a text of the
    question's as {language: Markdown}, with the format it is in."""

    language: str

    def text(self, source: str, inherited_format: str) -> tuple[dict[str, str], str]: ...

    def plain(self, source: str) -> str:
        """A part of the question as it is written, unescaped, trimmed (not Markdown)."""
        ...


class GiftWriting(Protocol):
    """What the GIFT writer offers a kind: `plain(value)` is a translated field of a
    quiz-file dict in the file's language, `text(value)` the same as GIFT writes it."""

    language: str

    def plain(self, value) -> str: ...

    def text(self, value) -> str: ...


class MoodleReading(Protocol):
    """What the Moodle XML reader offers a kind: `text(element)` is the text of an element
    (a <text> in its format) as {language: Markdown}, {} for None or an empty one."""

    language: str

    def text(self, element: ET.Element | None) -> dict[str, str]: ...


class MoodleWriting(Protocol):
    """What the Moodle XML writer offers a kind: `plain(value)` as for GIFT, and `answer`,
    which writes an <answer> with its weight, its text (or `name`) and its feedback."""

    language: str

    def plain(self, value) -> str: ...

    def answer(self, parent: ET.Element, choice: dict, weight: float, name: str | None): ...


class Kind:
    name: str  # As Question.kind and a quiz file's "kind" store it.
    label: Promise
    several = False
    keeps_choice_order = False
    shuffles_always = False
    marks_choices = False  # Its templates mark each choice's block: see the docstring.
    by_picks = True  # An answer is its picks alone (Answer.response stays None).
    texts_optional = False  # A choice may have no text (a matching question's distractor).
    # Answered by typing (a number, a text): its response is shown as it was given, and the
    # reports list its most frequent wrong ones.
    typed = False
    input_template = "quizzes/_choice_inputs.html"
    review_template = "quizzes/_choice_review.html"
    fills_prompt = False  # Its inputs sit in the prompt (gaps): the input template shows it.
    has_variables = False  # Drawn per attempt (calculated): `Question.variables` is its.
    in_gift = True  # GIFT writes it (calculated: GIFT has none, an export leaves it out).
    moodle_type: str
    moodle_also_reads: tuple[str, ...] = ()  # Other Moodle types of the same shape it reads.
    moodle_penalty: str  # What a wrong try costs in Moodle's interactive behaviour.

    def problems(self, correct: list[bool]) -> list[str]:
        """What is wrong with a question of this kind whose choices are correct or not."""
        raise NotImplementedError

    def value_problems(self, choices: list[EditedChoice]) -> list[str]:
        """What is wrong with the values of a question's choices (their texts, tolerances):
        nothing for a kind whose choices are texts to pick."""
        return []

    def variable_problems(self, variables, choices: list[EditedChoice]) -> list[str]:
        """What is wrong with a question's variables (`Question.variables`) and its choices'
        formulas: nothing for a kind without variables (calculated has some)."""
        return []

    def gap_problems(self, gaps, prompts: dict[str, str], choices: list[EditedChoice]):
        """What is wrong with a question's gaps (`Question.gaps`), the gaps of its prompt in
        each language ({language: text}) and its choices' gaps: nothing for a kind without
        gaps."""
        return []

    def form_field(self, choices: Iterable, question=None) -> forms.Field:
        """The learner's field, named "choice" on the page, for these ChoiceContents of this
        QuestionContent (None where only the choices are known)."""
        raise NotImplementedError

    def picked(self, value, choices: Iterable) -> list[int]:
        """The picked choices' ids in the field's cleaned value, in the order posted (of
        these ChoiceContents, in their order)."""
        raise NotImplementedError

    def response(self, value) -> str | None:
        """What `Answer.response` keeps of the field's cleaned value: None for picks."""
        return None

    def shown_response(self, response: str) -> str:
        """A kept response as the active language shows it (a number: "1 024" in French)."""
        return response

    def written(self, question, response: str, texts: Mapping[int, str], matches) -> str:
        """A kept response in one cell of a report, in the active language: `texts` and
        `matches` map the question's choices' ids to their texts and matches there (a
        typed answer as typed; the ordering's items in the learner's order…); an answer
        that kept none (recorded by its pick alone, as `seedattempts` writes a typed
        question's answers) an empty cell."""
        return self.shown_response(response) if response else ""

    def rematch(self, response: str, choices: Iterable, language: str | None = None) -> list[int]:
        """The picks a kept response makes of these choices as they are now (regrading a
        kind not answered by picks), given in `language` (the attempt's); a kind answered
        by picks keeps no response."""
        return []

    def for_question(self, question) -> "Kind":
        """The kind as it grades this question (a Question or QuestionContent): itself,
        unless the question has options of its kind (a short answer's case and accents)."""
        return self

    def accepts(self, question, picked: frozenset[int], response: str | None = None) -> bool:
        """Whether a response of these picks (and this response) to a QuestionContent has the
        shape this kind takes."""
        raise NotImplementedError

    def grade(self, question, picked: frozenset[int], response: str | None = None) -> float:
        """The score of these picks of a QuestionContent's choices (and this response),
        from 0 to 1."""
        raise NotImplementedError

    def gift_claims(self, answers: str) -> bool:
        """Whether the text between a GIFT question's braces is a question of this kind."""
        raise NotImplementedError

    def gift_read(self, answers: str, reading: GiftReading, inherited_format: str) -> Read:
        raise NotImplementedError

    def gift_write(self, question: dict, writing: GiftWriting, general: str) -> list[str]:
        """The lines of a quiz-file question's answers, from its opening brace on;
        `general` is its explanation as GIFT writes it, to end them with."""
        raise NotImplementedError

    def moodle_prompt(self, text: str, read: Callable[[str], dict[str, str]]) -> dict[str, str]:
        """A Moodle XML question's text (its <questiontext>'s, as written) as its prompt,
        {language: Markdown}: `read` converts a text from its format. A kind that keeps
        something of its own in that text (a multianswer's embedded answers) takes it out
        first."""
        return read(text)

    def moodle_read(self, element: ET.Element, reading: MoodleReading) -> Read:
        raise NotImplementedError

    def moodle_write(self, element: ET.Element, question: dict, writing: MoodleWriting) -> None:
        """A quiz-file question's answers, and what else its Moodle type asks, in the
        <question> element."""
        raise NotImplementedError

    def exported_as(self, question: dict, writing: GiftWriting | MoodleWriting) -> "Kind":
        """The kind a quiz-file question of this kind is written as, in a file's language."""
        return self
