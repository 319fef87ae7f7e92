"""Gaps (cloze): one text with several gaps, each a choice, a short answer or a number
(Moodle's embedded answers, `multianswer`, qtype_multianswer).

A question's prompt holds its gaps as `[[1]]`, `[[2]]`… (each once, in every language it
is written in), and `Question.gaps` names the kind of each, in order: "single" (a select
box of its choices), "short_answer" or "numerical" (typed). A choice belongs to the gap of
its `gap` number, and is to that gap what it would be to a question of the gap's kind: a
choice to pick, an accepted answer (the question's case and accents options apply), or a
value with its tolerance; each with its credit and its feedback.

The learner fills every gap: the page posts one value per gap, in order, under one name;
the answer keeps them as a JSON list in `Answer.response` (a pick as its choice's id, a
number as a plain decimal, a text as typed) and picks the choice each gap matched, if any.

Grading, credit per gap: each gap is graded as a question of its kind, and the score is the
mean of the gaps' scores.
"""

import html
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from xml.etree import ElementTree as ET

from django import forms
from django.utils.text import Truncator
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from quizzes.kinds import cloze, numerical
from quizzes.kinds.base import (
    EditedChoice,
    GiftReading,
    GiftWriting,
    Kind,
    MoodleReading,
    MoodleWriting,
    Read,
    posted_id,
)
from quizzes.kinds.numerical import Numerical
from quizzes.kinds.short_answer import ShortAnswer
from quizzes.kinds.single import SingleChoice

MAX_GAPS = 8  # A paragraph's worth; their responses fit Answer.response together.
MAX_TYPED = 100  # A gap holds a word, a term or a number.
MAX_RESPONSE = 2000  # Answer.response's length.
GAP = re.compile(r"\[\[([0-9]{1,3})\]\]")
# The kinds a gap can be, by the name `Question.gaps` keeps.
GAP_KINDS: dict[str, Kind] = {
    kind.name: kind for kind in (SingleChoice(), ShortAnswer(), Numerical())
}


def gap_numbers(text: str) -> list[int]:
    """The gaps a text holds, in the order they show ([[2]] then [[1]]: [2, 1])."""
    return [int(number) for number in GAP.findall(text)]


_BLANK = re.compile(r'<span class="gap-blank" data-gap="([0-9]+)">\([0-9]+\)</span>')
# A gap with what sticks to it on its line: an opening bracket or quote before it, closing
# punctuation after it (in French, after a no-break space), so that no line of the prompt
# starts with the comma that follows a gap's box.
_STUCK = re.compile(
    r"((?:[(\[«“‘\"'][\u00a0\u202f]?)?)\[\[([0-9]{1,3})\]\]((?:[\u00a0\u202f]?[)\]»”’\"'.,;:!?…])*)"
)


def blanks(rendered):
    """A prompt rendered to HTML (a `markup.Rendered`) with each gap [[n]] a numbered blank,
    "(n)", where the learner's form puts the gap's input (`filled`); each in a slot with
    the punctuation around it, kept on one line."""
    html = _STUCK.sub(
        r'<span class="gap-slot">\1<span class="gap-blank" data-gap="\2">(\2)</span>\3</span>',
        rendered.html,
    )
    return replace(rendered, html=html)


def filled(html: str, inputs: dict[int, str]) -> str:
    """A prompt's HTML with blanks (`blanks`) with each gap's blank replaced by its input
    (HTML, safe): those it has none for stay blanks."""
    return _BLANK.sub(lambda found: inputs.get(int(found.group(1)), found.group(0)), html)


def of_gap(choices: Iterable, gap: int) -> list:
    """The choices of gap `gap` (from 1) among these, in their order."""
    return [choice for choice in choices if choice.gap == gap]


def sub_question(question, gap: int):
    """Gap `gap` (from 1) of a gaps QuestionContent as a question of its own kind: its
    choices those of the gap, in the order they are shown."""
    fields = {
        "kind": question.gaps[gap - 1],
        "choices": tuple(of_gap(question.choices, gap)),
    }
    return replace(question, **fields)


def kind_of(sub) -> Kind:
    """The kind of a gap (`sub_question`), as it grades that gap."""
    return GAP_KINDS[sub.kind].for_question(sub)


def responses(response: str | None, count: int) -> list[str] | None:
    """The gaps' responses a kept response holds, or None for a bad one."""
    try:
        values = json.loads(response or "")
    except (ValueError, RecursionError):
        return None
    if (
        not isinstance(values, list)
        or len(values) != count
        or not all(isinstance(value, str) for value in values)
    ):
        return None
    return values


def kept_response(kind_names: Iterable[str], cleaned: Iterable) -> str:
    """What `Answer.response` keeps of the gaps' cleaned values (of these kinds, in order):
    a JSON list of a pick's choice id, a number as a plain decimal, a text."""
    kept = [
        str(value) if name == SingleChoice.name else GAP_KINDS[name].response(value)
        for name, value in zip(kind_names, cleaned, strict=True)
    ]
    return json.dumps(kept, ensure_ascii=False)


@dataclass(frozen=True)
class GapAnswer:
    """One gap of an answer: its number, the gap as a question of its kind, the response
    kept for it (a pick's choice id, a number, a text), the choice it matched (None: none)
    and its score."""

    number: int
    question: object
    response: str
    matched: object
    score: float

    @property
    def is_choice(self) -> bool:
        return self.question.kind == SingleChoice.name

    @property
    def shown(self) -> str:
        """The response as the active language shows it (a pick: its choice's text)."""
        if self.is_choice:
            return str(self.matched.text) if self.matched is not None else ""
        return kind_of(self.question).shown_response(self.response)

    @property
    def right_choices(self) -> list:
        return [choice for choice in self.question.choices if choice.is_correct]


def gap_answers(question, response: str | None, picked: Iterable[int] = ()) -> list[GapAnswer]:
    """Each gap of a gaps QuestionContent with the learner's response (`Answer.response`)
    and the choice it matched among `picked`; [] for a response that is none."""
    values = responses(response, len(question.gaps))
    if values is None:
        return []
    picked = frozenset(picked)
    found = []
    for number, value in enumerate(values, 1):
        sub = sub_question(question, number)
        mine = frozenset(choice.pk for choice in sub.choices) & picked
        matched = next((choice for choice in sub.choices if choice.pk in mine), None)
        score = kind_of(sub).grade(sub, mine, None if sub.kind == SingleChoice.name else value)
        found.append(GapAnswer(number, sub, value, matched, score))
    return found


def gap_kinds_problems(gaps) -> list[str]:
    """What is wrong with a gaps question's list of its gaps' kinds (`Question.gaps`)."""
    if not isinstance(gaps, list | tuple) or not gaps:
        return [gettext("A gaps question needs the kind of each of its gaps, in order.")]
    if len(gaps) > MAX_GAPS:
        message = gettext("A gaps question has at most %(limit)s gaps, not %(count)s.")
        return [message % {"limit": MAX_GAPS, "count": len(gaps)}]
    unknown = [str(kind) for kind in gaps if kind not in GAP_KINDS]
    if unknown:
        message = gettext("“%(kind)s” is no kind of gap: a gap is one of %(kinds)s.")
        kind = Truncator(unknown[0]).chars(31)  # A file's 10,000 characters: their start.
        return [message % {"kind": kind, "kinds": ", ".join(GAP_KINDS)}]
    return []


def gaps_problems(gaps, prompts: dict[str, str], choices: list[EditedChoice]) -> list[str]:
    """What is wrong with a gaps question as an editor left it: its gaps' kinds, the gaps of
    its prompt in each language ({language: text}) and the choices of each gap."""
    problems = gap_kinds_problems(gaps)
    if problems:
        return problems
    wanted = list(range(1, len(gaps) + 1))
    for language, text in prompts.items():
        if text and sorted(gap_numbers(text)) != wanted:
            message = gettext(
                "prompt (%(language)s): write each gap once, [[1]] to [[%(count)s]], "
                "where the learner fills it in."
            )
            problems.append(message % {"language": language, "count": len(gaps)})
    for choice_number, choice in enumerate(choices, 1):
        if choice.gap not in wanted:
            message = gettext("choice %(number)s: give the number of its gap, 1 to %(count)s.")
            problems.append(message % {"number": choice_number, "count": len(gaps)})
    for number, kind_name in enumerate(gaps, 1):
        kind = GAP_KINDS[kind_name]
        mine = of_gap(choices, number)
        if not mine:
            problems.append(gettext("gap %(number)s has no choices.") % {"number": number})
            continue
        correct = [choice.correct for choice in mine]
        for problem in [*kind.problems(correct), *kind.value_problems(mine)]:
            problems.append(
                gettext("gap %(number)s: %(problem)s") % {"number": number, "problem": problem}
            )
    return problems


class GapsField(forms.Field):
    """A value for each gap, in order, under one name, each cleaned by its gap's own field
    (a choice's id, a text, a number): cleaned to those values, in the gaps' order."""

    widget = forms.SelectMultiple
    default_error_messages = {
        "required": _("Fill in every gap."),
        "invalid": _("Those are not this question's gaps. Fill in each gap shown."),
        "gap": _("Gap %(number)s: %(problem)s"),
        "too_long": _("Your answers are too long together: write less in the gaps."),
    }

    def __init__(self, *, kind_names: list[str], fields: list[forms.Field], **kwargs):
        super().__init__(**kwargs)
        self.kind_names, self.fields = kind_names, fields

    def to_python(self, value) -> tuple:
        if not value:
            return ()
        if not isinstance(value, list | tuple) or len(value) != len(self.fields):
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        if any(not str(posted).strip() for posted in value):
            raise forms.ValidationError(self.error_messages["required"], code="required")
        cleaned = []
        for number, (field, posted) in enumerate(zip(self.fields, value, strict=True), 1):
            if len(str(posted)) > MAX_TYPED:
                problem = gettext("that is too long for a gap: %(count)s characters at most.")
                problem %= {"count": MAX_TYPED}
            else:
                try:
                    cleaned.append(field.clean(posted))
                    continue
                except forms.ValidationError as error:
                    problem = error.messages[0]
            # The gap's number kept apart (its params), for the page to mark that gap.
            raise forms.ValidationError(
                self.error_messages["gap"],
                code="gap",
                params={"number": number, "problem": problem},
            )
        if len(kept_response(self.kind_names, cleaned)) > MAX_RESPONSE:
            raise forms.ValidationError(self.error_messages["too_long"], code="too_long")
        return tuple(cleaned)


class Gaps(Kind):
    name = "gaps"
    label = _("Gaps (cloze)")
    by_picks = False
    in_gift = False  # GIFT has no embedded answers.
    fills_prompt = True
    marks_choices = True  # Each gap's options (quizzes/templatetags/gaps.py: gap_prompt).
    input_template = "quizzes/_gap_inputs.html"
    review_template = "quizzes/_gap_review.html"
    moodle_type = "cloze"  # Moodle's XML export names its multianswer questions so.
    moodle_also_reads = ("multianswer",)
    moodle_penalty = "0.3333333"
    # Bound to a question by `for_question`: its gaps' kinds and the question itself.
    _gaps: tuple[str, ...] = ()
    _question = None

    def problems(self, correct: list[bool]) -> list[str]:
        return []  # Each gap's choices are checked by its kind: `gap_problems`.

    def gap_problems(self, gaps, prompts: dict[str, str], choices: list[EditedChoice]):
        return gaps_problems(gaps, prompts, choices)

    def form_field(self, choices, question=None) -> forms.Field:
        shown = list(choices)
        fields = []
        for number in range(1, len(question.gaps) + 1):
            sub = sub_question(question, number)
            mine = of_gap(shown, number)
            fields.append(kind_of(sub).form_field(mine, sub))
        return GapsField(kind_names=list(question.gaps), fields=fields)

    def picked(self, value, choices) -> list[int]:
        found = []
        for number, (kind_name, cleaned) in enumerate(zip(self._gaps, value, strict=True), 1):
            mine = of_gap(choices, number)
            found += GAP_KINDS[kind_name].for_question(self._question).picked(cleaned, mine)
        return found

    def response(self, value) -> str | None:
        return kept_response(self._gaps, value)

    def for_question(self, question) -> Kind:
        bound = Gaps()
        bound._gaps = tuple(getattr(question, "gaps", ()) or ())
        bound._question = question
        return bound

    def written(self, question, response: str, texts: Mapping[int, str], matches) -> str:
        """Each gap numbered, joined with " | " as several picks are: "(1) 256 | (2)
        all-reduce | (3) DDP" (a choice gap: its choice's text)."""
        shown = []
        given = responses(response, len(question.gaps)) or []
        for kind, value in zip(question.gaps, given, strict=False):
            if kind == SingleChoice.name:  # The choice's id, as `Answer.response` keeps it.
                pk = posted_id(value)
                shown.append(texts.get(pk, "") if pk is not None else "")
            else:
                shown.append(GAP_KINDS[kind].shown_response(value))
        return " | ".join(f"({number}) {text}" for number, text in enumerate(shown, 1))

    def rematch(self, response: str, choices: Iterable, language: str | None = None) -> list[int]:
        choices = list(choices)
        values = responses(response, len(self._gaps))
        if values is None:
            return []
        found = []
        for number, (kind_name, value) in enumerate(zip(self._gaps, values, strict=True), 1):
            mine = of_gap(choices, number)
            if kind_name == SingleChoice.name:
                found += [choice.pk for choice in mine if choice.pk == posted_id(value)]
            else:
                kind = GAP_KINDS[kind_name].for_question(self._question)
                found += kind.rematch(value, mine, language)
        return found

    def accepts(self, question, picked: frozenset[int], response: str | None = None) -> bool:
        values = responses(response, len(question.gaps))
        if values is None:
            return False
        claimed = set()
        for number, value in enumerate(values, 1):
            sub = sub_question(question, number)
            mine = frozenset(choice.pk for choice in sub.choices) & picked
            claimed |= mine
            if sub.kind == SingleChoice.name:
                if mine != {posted_id(value)}:
                    return False
            elif len(value) > MAX_TYPED or not kind_of(sub).accepts(sub, mine, value):
                return False
        return claimed == picked

    def grade(self, question, picked: frozenset[int], response: str | None = None) -> float:
        gaps = gap_answers(question, response, picked)
        return sum(gap.score for gap in gaps) / len(gaps) if gaps else 0.0

    def gift_claims(self, answers: str) -> bool:
        return False  # GIFT has no embedded answers.

    def gift_read(self, answers: str, reading: GiftReading, inherited_format: str) -> Read:
        raise NotImplementedError  # Never asked: it claims no GIFT answers.

    def gift_write(self, question: dict, writing: GiftWriting, general: str) -> list[str]:
        raise NotImplementedError("GIFT has no embedded answers.")

    def moodle_prompt(self, text: str, read: Callable[[str], dict[str, str]]) -> dict[str, str]:
        """The text with each embedded answer a gap, [[1]], [[2]]…, where it was: held as
        its number while the text is read from its format, which would escape brackets."""
        found = cloze.read(text)
        if found.problem:
            return read(text)  # `moodle_read` leaves the question out, saying why.
        return {code: cloze.with_gaps(value) for code, value in read(found.held).items()}

    def moodle_read(self, element: ET.Element, reading: MoodleReading) -> Read:
        """The embedded answers of its text (Moodle's cloze syntax, quizzes/kinds/cloze.py),
        each gap read as a question of its kind would be (its answers' weights, texts and
        feedback in the text's format); what a gap can't be here leaves the question out,
        what is lost is a warning."""
        found = cloze.read(element.findtext("questiontext/text") or "")
        if found.problem:
            return Read(problem=found.problem)
        if not found.gaps:
            message = gettext(
                "an embedded answers question without an embedded answer "
                "({1:SHORTANSWER:=answer}…) in its text: it has no gaps."
            )
            return Read(problem=message)
        if len(found.gaps) > MAX_GAPS:
            message = gettext("%(count)s embedded answers: a gaps question has at most %(limit)s.")
            return Read(problem=message % {"count": len(found.gaps), "limit": MAX_GAPS})
        gaps, choices, warnings = [], [], []
        shuffled, case_sensitive = [], []
        for number, gap in enumerate(found.gaps, 1):
            read = _moodle_gap(number, gap, reading)
            if read.problem:
                return read
            kind_name = read.fields["kind"]
            gaps.append(kind_name)
            choices += [{**choice, "gap": number} for choice in read.fields["choices"]]
            warnings += read.warnings
            if kind_name == SingleChoice.name:
                shuffled.append(not read.fields.get("keep_choice_order"))
            elif kind_name == ShortAnswer.name:
                case_sensitive.append(bool(read.fields.get("case_sensitive")))
        fields = {"kind": self.name, "gaps": gaps, "choices": choices}
        if not all(shuffled):
            fields["keep_choice_order"] = True
        if case_sensitive and all(case_sensitive):
            fields["case_sensitive"] = True
        elif any(case_sensitive):
            warnings.append(
                gettext(
                    "some short-answer gaps are case-sensitive and others not: here case "
                    "counts in none of them."
                )
            )
        if element.find("answer") is not None or element.find("subquestion") is not None:
            warnings.append(
                gettext(
                    "not kept: its <answer> and <subquestion> elements: an embedded answers "
                    "question's gaps are the markers in its text, as Moodle writes them."
                )
            )
        weights = [_gap_weight(gap.weight) for gap in found.gaps]
        if len(set(weights)) > 1:
            message = gettext(
                "the gaps are weighted %(weights)s: here each gap earns an equal share."
            )
            warnings.append(message % {"weights": ", ".join(weights)})
        return Read(fields=fields, warnings=tuple(warnings))

    def moodle_write(self, element: ET.Element, question: dict, writing: MoodleWriting) -> None:
        """Each gap written as a question of its kind, whose answers become its marker in the
        question's text, where the prompt has the gap; a gap the prompt lacks in the file's
        language goes at the text's end. The files the markers show go with the text."""
        question_text = element.find("questiontext")
        markers = {}
        for number, kind_name in enumerate(question.get("gaps") or [], 1):
            sub = ET.Element("question")
            mine = [choice for choice in question.get("choices", []) if choice.get("gap") == number]
            written = {
                "kind": kind_name,
                "choices": mine,
                "case_sensitive": question.get("case_sensitive"),
                "keep_choice_order": question.get("keep_choice_order"),
            }
            GAP_KINDS[kind_name].moodle_write(sub, written, writing)
            markers[number] = _marker(kind_name, sub)
            names = {(file.get("path"), file.get("name")) for file in question_text.iter("file")}
            for file in sub.iter("file"):
                if (file.get("path"), file.get("name")) not in names:
                    question_text.append(file)
                    names.add((file.get("path"), file.get("name")))
        text = question_text.find("text")
        text.text = GAP.sub(lambda gap: markers.pop(int(gap.group(1)), gap.group()), text.text)
        if markers:
            text.text = " ".join([text.text, *markers.values()]).strip()


def _gap_weight(weight: str) -> str:
    """A gap's weight as its marker writes it (`{2:`), as a number: none is 1."""
    if not weight:
        return "1"
    weight = weight.lstrip("0") or "0"
    return weight if len(weight) <= 10 else weight[:10] + "…"


def _moodle_gap(number: int, gap: cloze.Gap, reading: MoodleReading) -> Read:
    """A gap's answers read as a Moodle XML question of its kind would be: its fields, with
    its kind, or why it can't be a gap (the problem naming the gap)."""

    def problem(text: str) -> Read:
        message = gettext("gap %(number)s: %(problem)s")
        return Read(problem=message % {"number": number, "problem": text})

    if gap.type not in cloze.TYPES:
        message = gettext(
            "Moodle has no embedded answer of type “%(type)s” (a plugin's?): it can't be read."
        )
        return problem(message % {"type": gap.type[:30]})
    read_as = cloze.TYPES[gap.type]
    if read_as is None:
        message = gettext("“%(type)s” takes several answers: a gap here takes one.")
        return problem(message % {"type": gap.type})
    kind_name, option = read_as
    sub = ET.Element("question")
    if kind_name == SingleChoice.name:
        ET.SubElement(sub, "single").text = "true"
        ET.SubElement(sub, "shuffleanswers").text = "true" if option else "false"
    if kind_name == ShortAnswer.name:
        ET.SubElement(sub, "usecase").text = "1" if option else "0"
    for answer in gap.answers:
        item = ET.SubElement(sub, "answer", {"fraction": answer.weight})
        if kind_name == SingleChoice.name:
            ET.SubElement(item, "text").text = answer.text
        else:  # As Moodle reads them: its entities decoded, whatever the text's format.
            text = html.unescape(answer.text).strip()
            if kind_name == Numerical.name:
                if len(text) > numerical.MAX_CHARACTERS:
                    message = gettext("the numerical answer “%(answer)s” is not a number.")
                    return problem(message % {"answer": text[:30] + "…"})
                text, tolerance = cloze.numerical(text)
                ET.SubElement(item, "tolerance").text = tolerance
            ET.SubElement(item, "text").text = text
        if answer.feedback:
            ET.SubElement(ET.SubElement(item, "feedback"), "text").text = answer.feedback
    read = GAP_KINDS[kind_name].moodle_read(sub, reading)
    if read.problem:
        return problem(read.problem)
    warnings = tuple(
        gettext("gap %(number)s: %(problem)s") % {"number": number, "problem": warning}
        for warning in read.warnings
    )
    return Read(fields={**read.fields, "kind": kind_name}, warnings=warnings)


def _marker(kind_name: str, sub: ET.Element) -> str:
    """The marker of a gap written as a Moodle XML question of its kind (`sub`)."""
    plain, other = cloze.WRITTEN[kind_name]
    option = (sub.findtext("usecase") == "1") or (sub.findtext("shuffleanswers") == "true")
    answers = []
    for answer in sub.findall("answer"):
        text = answer.findtext("text") or ""
        tolerance = answer.findtext("tolerance") or "0"
        if kind_name == Numerical.name and tolerance != "0":
            text = f"{text}:{tolerance}"
        if kind_name != SingleChoice.name:
            text = text.replace("&", "&amp;")  # Moodle decodes their entities.
        feedback = answer.findtext("feedback/text") or ""
        answers.append(cloze.Answer(answer.get("fraction", "0"), text, feedback))
    return cloze.marker(other if option else plain, answers)
