"""Numerical: the learner types a number; its choices are values, each give or take a
tolerance (Moodle's `numerical` with several answers).

A choice's value is its text, a number as its language writes it ("1024", "1 024" in
French), the same number in every language that has one. An answer matches the first
choice, in order, that it is within the tolerance of; it is right when that choice is
correct. A wrong value with feedback is a known mistake ("32: the accumulation steps are
left out"), an answer that matches none is wrong with no feedback; a choice whose value is
"*" matches any number (Moodle's "*" answer: the feedback of any other number, put last). A
matching choice gives full marks when correct, its `credit` (a near miss's share, 0 by
default) otherwise; the formats write a credit as Moodle's weight in percent (50 for 0.5).

`read_number` reads what a learner or an editor typed as their language writes numbers,
and refuses, with a message saying why, what it can't read rightly: never a silent 0.
"""

import re
from collections.abc import Iterable, Sequence
from decimal import Context, Decimal, InvalidOperation, localcontext
from xml.etree import ElementTree as ET

from django import forms
from django.conf import settings
from django.utils import translation
from django.utils.formats import get_format, number_format
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from quizzes.kinds.base import (
    EditedChoice,
    GiftReading,
    GiftWriting,
    Kind,
    MoodleReading,
    MoodleWriting,
    Read,
)

MAX_CHARACTERS = 100  # Typed: a number of 30 digits in groups, signed, with an exponent.
UNIT_NAME_LENGTH = 30  # As Unit.name keeps it.
MULTIPLIER_DECIMALS = 15  # As Unit.multiplier keeps it: 15 digits each side of the point.
MAX_DIGITS = 30
MAX_EXPONENT = 30  # Numbers from 1e-30 to 1e30 in size, and 0.
# Exact for every number read: sums and differences of two of them too.
_EXACT = Context(prec=2 * (MAX_DIGITS + 2 * MAX_EXPONENT))
_SPACES = " \u00a0\u202f\u2009"  # Space, no-break space, narrow no-break space, thin space.
# A space between digits that groups the three digits after it.
_GROUP_SPACE = re.compile(rf"(?<=[0-9])[{_SPACES}](?=[0-9]{{3}}(?![0-9]))")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
_GROUPED = {  # An integer part in groups of three, by the separator.
    ",": re.compile(r"[+-]?[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?", re.ASCII),
    ".": re.compile(r"[+-]?[0-9]{1,3}(?:\.[0-9]{3})+", re.ASCII),
}


ANY = "*"  # A choice whose value is this matches any number (Moodle's "*" answer).
CREDIT_STEP = Decimal("0.00001")  # As Choice.credit keeps it.


class NumberError(ValueError):
    """A text that is not a number this site reads; its message says why, to the learner."""


def read_number(text: str, language: str) -> Decimal:
    """The number `text` writes, as `language` writes numbers: in French "1,5", "1 024"
    (any space in groups of three); in English "1.5", "1,024"; "1e-3" in both. A
    point in French reads as a decimal point too, unless it could be grouping ("1.024").
    Raises NumberError for anything else: empty, too long, other digits than 0 to 9, NaN,
    infinities, more than MAX_DIGITS digits, sizes beyond 1e±MAX_EXPONENT."""
    return _read(text, get_format("DECIMAL_SEPARATOR", lang=language))


def _read(text: str, decimal_separator: str) -> Decimal:
    text = text.strip()
    if not text:
        raise NumberError(gettext("Type a number."))
    if len(text) > MAX_CHARACTERS:
        message = gettext("That is too long for a number: %(count)s characters at most.")
        raise NumberError(message % {"count": MAX_CHARACTERS})
    if any(char.isdigit() and char not in "0123456789" for char in text):
        raise NumberError(gettext("Write the number with the digits 0 to 9."))
    shown = text
    text = _GROUP_SPACE.sub("", text.replace("\u2212", "-"))
    if decimal_separator == ",":
        if "," in text and "." not in text:
            text = text.replace(",", ".", 1)
        elif _GROUPED["."].fullmatch(text):
            message = gettext("“%(text)s” could be read two ways: write 1 024 or 1,024.")
            raise NumberError(message % {"text": shown})
    elif _GROUPED[","].fullmatch(text):
        text = text.replace(",", "")
    elif "," in text:
        message = gettext("“%(text)s”: write the decimal point as a point, 1.5.")
        raise NumberError(message % {"text": shown})
    if not _NUMBER.fullmatch(text):
        message = gettext("“%(text)s” is not a number: write it as 1.5, 1,024 or 1e-3.")
        raise NumberError(message % {"text": shown})
    number = Decimal(text)
    if len(number.normalize(_EXACT).as_tuple().digits) > MAX_DIGITS:
        message = gettext("That number has too many digits: %(count)s at most.")
        raise NumberError(message % {"count": MAX_DIGITS})
    if number and not -MAX_EXPONENT <= number.adjusted() <= MAX_EXPONENT:
        message = gettext("That number is too large or too small: between 1e-%(n)s and 1e%(n)s.")
        raise NumberError(message % {"n": MAX_EXPONENT})
    return number


def plain(number: Decimal) -> str:
    """A number as `Answer.response` and the files keep it: "1024", "0.001", "-2.5"."""
    if not number:
        return "0"
    return format(number.normalize(_EXACT), "f")


def choice_value(choice) -> Decimal | None:
    """A choice's value (a ChoiceContent's, or anything with a `text` Text): its text in the
    default language, else the first language that has one; None when none reads."""
    texts = dict(choice.text.by_language)
    ordered = [settings.LANGUAGE_CODE, *(code for code in texts if code != settings.LANGUAGE_CODE)]
    for code in ordered:
        if texts.get(code):
            try:
                return read_number(texts[code], code)
            except NumberError:
                return None
    return None


def matches(number: Decimal, value: Decimal, tolerance, relative: bool = False) -> bool:
    """Whether `number` is within `tolerance` of `value`: a distance, or with `relative` a
    percentage of the value (1: 1 %)."""
    with localcontext(_EXACT):
        return abs(number - value) <= bound(value, tolerance, relative)


def bound(value: Decimal, tolerance, relative: bool) -> Decimal:
    """How far from `value` an answer may be: the tolerance, or its percentage of the value."""
    with localcontext(_EXACT):
        tolerance = Decimal(tolerance or 0)
        return tolerance * abs(value) / 100 if relative else tolerance


def first_match(choices: Iterable, number: Decimal):
    """The first of these choices (in their order) whose value `number` is within the
    tolerance of; None when none."""
    for choice in choices:
        if is_any(choice):
            return choice
        value = choice_value(choice)
        if value is not None and matches(
            number, value, choice.tolerance, choice.relative_tolerance
        ):
            return choice
    return None


def is_any(choice) -> bool:
    """Whether a choice (a ChoiceContent's, or anything with a `text` Text) takes any number:
    its value is "*" in every language that has one."""
    texts = [text.strip() for _code, text in choice.text.by_language if text]
    return bool(texts) and all(text == ANY for text in texts)


def base_unit(units: Sequence):
    """The unit of a question's values: the first of its units whose multiplier is 1."""
    return next((unit for unit in units if Decimal(unit.multiplier) == 1), None)


def unit_problems(units: Sequence[tuple[str, object]]) -> list[str]:
    """What is wrong with a question's units, as (name, multiplier) in order: a name must be
    printable, without spaces at its ends, unique, not start as a number does; a multiplier
    a number above 0; one unit, the base, of multiplier 1."""
    found, names = [], set()
    for number, (name, multiplier) in enumerate(units, 1):
        where = gettext("unit %(number)s") % {"number": number}
        name = name if isinstance(name, str) else ""
        if not name.strip():
            found.append(f"{where}: " + gettext("write its name, as learners type it (MB)."))
        elif len(name) > UNIT_NAME_LENGTH:
            message = gettext("its name is too long: %(count)s characters at most.")
            found.append(f"{where}: " + message % {"count": UNIT_NAME_LENGTH})
        elif not name.isprintable() or name != name.strip() or name[0] in "0123456789+-.,":
            message = gettext("“%(name)s” can't be told from the number: start it with a letter.")
            found.append(f"{where}: " + message % {"name": name})
        elif name in names:
            message = gettext("“%(name)s” is there twice.")
            found.append(f"{where}: " + message % {"name": name})
        names.add(name)
        try:
            value = Decimal(multiplier)
        except (InvalidOperation, TypeError, ValueError):
            value = None
        if value is None or not value.is_finite() or value <= 0:
            found.append(f"{where}: " + gettext("its multiplier must be a number above 0."))
        elif value >= 10**MULTIPLIER_DECIMALS or value != value.quantize(
            Decimal(10) ** -MULTIPLIER_DECIMALS, context=_EXACT
        ):
            message = gettext(
                "its multiplier has too many digits: %(count)s at most each side of the point."
            )
            found.append(f"{where}: " + message % {"count": MULTIPLIER_DECIMALS})
    if units and not found and not any(Decimal(m) == 1 for _name, m in units):
        found.append(gettext("one unit, the values' unit, has the multiplier 1."))
    return found


def unit_names(units: Sequence) -> str:
    """A question's units named for a message: "MB, GB"."""
    return ", ".join(unit.name for unit in units)


def read_quantity(text: str, language: str, units: Sequence = (), required: bool = False):
    """The number `text` writes (read_number), in the base unit of these units (UnitContents,
    or anything with a `name` and a `multiplier`): "2 GB", "2GB" or "GB 2" is 2 GB's number
    of MB, the number over the unit's multiplier; a number alone is in the base unit, or
    refused when a unit is `required`. Raises NumberError for a unit that is none of these,
    and for a number the conversion takes beyond what read_number reads."""
    if not units:
        return read_number(text, language)
    text = text.strip()
    if len(text) > MAX_CHARACTERS + UNIT_NAME_LENGTH:
        message = gettext("That is too long for a number: %(count)s characters at most.")
        raise NumberError(message % {"count": MAX_CHARACTERS})
    try:
        number = read_number(text, language)
    except NumberError as error:
        problem = error
    else:
        if required:
            message = gettext("Give the unit too: %(units)s.")
            raise NumberError(message % {"units": unit_names(units)})
        return number
    given = None  # Why the number of the first unit the text gives can't be read.
    for unit in sorted(units, key=lambda unit: len(unit.name), reverse=True):
        if text.endswith(unit.name):
            rest = text[: -len(unit.name)]
        elif text.startswith(unit.name):
            rest = text[len(unit.name) :]
        else:
            continue
        try:
            number = read_number(rest, language)
        except NumberError as error:
            given = given or error
            continue
        return _in_base_unit(number, Decimal(unit.multiplier))
    if given is not None:
        raise given
    unknown = _unit_after_number(text, language)
    if unknown:
        message = gettext("“%(unit)s” is not a unit of this answer: write %(units)s.")
        raise NumberError(message % {"unit": unknown, "units": unit_names(units)})
    raise problem


def _in_base_unit(number: Decimal, multiplier: Decimal) -> Decimal:
    with localcontext(_EXACT):
        converted = Context(prec=MAX_DIGITS).plus(number / multiplier)
    if converted and not -MAX_EXPONENT <= converted.adjusted() <= MAX_EXPONENT:
        message = gettext("That number is too large or too small: between 1e-%(n)s and 1e%(n)s.")
        raise NumberError(message % {"n": MAX_EXPONENT})
    return converted


def _unit_after_number(text: str, language: str) -> str:
    """What follows the longest start of `text` that is a number ("kg" of "2 kg"); "" when
    no start of it is."""
    for end in range(len(text) - 1, 0, -1):
        if text[end - 1] in "0123456789.":
            try:
                read_number(text[:end], language)
            except NumberError:
                continue
            return text[end:].strip()
    return ""


class NumberField(forms.CharField):
    """A number as the active language writes it (read_number), with a unit of `units` if
    the question has some (read_quantity), cleaned to a Decimal in the base unit."""

    default_error_messages = {"required": _("Type a number.")}

    def __init__(self, *, units: Sequence = (), units_required: bool = False, **kwargs):
        super().__init__(**kwargs)
        self.units, self.units_required = tuple(units), units_required

    def to_python(self, value) -> Decimal | None:
        text = super().to_python(value)
        if text in self.empty_values:
            return None
        language = translation.get_language() or settings.LANGUAGE_CODE
        try:
            return read_quantity(text, language, self.units, self.units_required)
        except NumberError as error:
            raise forms.ValidationError(str(error), code="invalid") from None


class Numerical(Kind):
    name = "numerical"
    label = _("Numerical")
    keeps_choice_order = True  # The first value an answer matches is its match.
    by_picks = False
    typed = True
    input_template = "quizzes/_number_input.html"
    review_template = "quizzes/_number_review.html"

    def problems(self, correct: list[bool]) -> list[str]:
        if any(correct):
            return []
        return [gettext("Mark at least one value as correct.")]

    def value_problems(self, choices: list[EditedChoice]) -> list[str]:
        found = []
        for number, choice in enumerate(choices, 1):
            found += [
                gettext("value %(number)s: %(problem)s") % {"number": number, "problem": problem}
                for problem in _choice_problems(choice)
            ]
        return found

    def form_field(self, choices, question=None) -> forms.Field:
        if question is None:
            return NumberField()
        return NumberField(units=question.units, units_required=question.units_required)

    def picked(self, value, choices) -> list[int]:
        match = first_match(choices, value)
        return [] if match is None else [match.pk]

    def response(self, value) -> str | None:
        return plain(value)

    def shown_response(self, response: str) -> str:
        return number_text(response)

    def rematch(self, response: str, choices: Iterable, language: str | None = None) -> list[int]:
        return self.picked(read_number(response, "en"), choices)

    def accepts(self, question, picked: frozenset[int], response: str | None = None) -> bool:
        if response is None:
            return False
        try:
            number = read_number(response, "en")
        except NumberError:
            return False
        match = first_match(question.choices, number)
        return picked == (frozenset() if match is None else frozenset({match.pk}))

    def grade(self, question, picked: frozenset[int], response: str | None = None) -> float:
        matched = [choice for choice in question.choices if choice.pk in picked]
        if not matched:
            return 0.0
        return 1.0 if matched[0].is_correct else float(matched[0].credit)

    def gift_claims(self, answers: str) -> bool:
        return answers.startswith("#")

    def gift_read(self, answers: str, reading: GiftReading, inherited_format: str) -> Read:
        """{#3:0.1}, {#2..4}, or {#=3:0.1#feedback =%50%3:1#… ~#feedback}, as Moodle reads
        them: each answer a value and its tolerance (or a range), weighted in percent (100
        right, less a near miss's credit); after a `~`, the feedback of any other number."""
        answers, other, other_feedback = answers[1:].partition("~")
        items = [item.strip() for item in answers.replace("=", "\0=").split("\0")]
        choices = []
        for item in filter(None, items):
            weight = "100"
            if item.startswith("="):
                item = item[1:].lstrip()
                if match := re.match(r"^%([^%]*)%", item):
                    weight, item = match.group(1), item[match.end() :]
            answer, _hash, feedback = item.partition("#")
            read = _gift_value(answer.strip())
            if read is None:
                message = gettext("the numerical answer “%(answer)s” is not a number.")
                return Read(problem=message % {"answer": answer.strip()})
            graded = _graded(weight)
            if isinstance(graded, str):
                return Read(problem=graded)
            value, tolerance = read
            choice = {"text": {reading.language: value}, **graded}
            if tolerance != "0":
                choice["tolerance"] = tolerance
            feedback_text, _format = reading.text(feedback, inherited_format)
            if any(feedback_text.values()):
                choice["feedback"] = feedback_text
            choices.append(choice)
        if not choices:
            return Read(problem=gettext("a numerical question needs at least one answer."))
        if other:
            choice = {"text": {reading.language: ANY}, "correct": False}
            feedback = other_feedback.partition("#")[2]
            feedback_text, _format = reading.text(feedback, inherited_format)
            if any(feedback_text.values()):
                choice["feedback"] = feedback_text
            choices.append(choice)
        return Read(fields={"kind": self.name, "choices": choices})

    def gift_write(self, question: dict, writing: GiftWriting, general: str) -> list[str]:
        lines = ["{#"]
        for choice in question.get("choices", []):
            value = _file_value(choice, writing)
            if value == ANY:
                line = "\t~"
            else:
                tolerance = _file_tolerance(choice, value)
                line = f"\t={_gift_weight(choice)}{value}:{tolerance}"
            if writing.plain(choice.get("feedback")):
                line += f"#{writing.text(choice.get('feedback'))}"
            lines.append(line)
        if general:
            lines.append(f"\t{general}")
        return [*lines, "}"]

    moodle_type = "numerical"
    moodle_penalty = "0.3333333"

    def moodle_read(self, element: ET.Element, reading: MoodleReading) -> Read:
        choices = []
        for answer in element.findall("answer"):
            text = (answer.findtext("text") or "").strip()
            try:
                value = ANY if text == ANY else plain(read_number(text, "en"))
                tolerance = read_number(answer.findtext("tolerance") or "0", "en")
            except NumberError:
                message = gettext("the numerical answer “%(answer)s” is not a number.")
                return Read(problem=message % {"answer": text})
            tolerance = _moodle_tolerance(answer, tolerance)
            if tolerance is None:
                message = gettext("the numerical answer “%(answer)s” is not a number.")
                return Read(problem=message % {"answer": text})
            graded = _graded(answer.get("fraction", "0"))
            if isinstance(graded, str):
                return Read(problem=graded)
            choice = {"text": {reading.language: value}, **graded}
            if tolerance != "0" and value != ANY:
                choice["tolerance"] = tolerance
            feedback = reading.text(answer.find("feedback"))
            if feedback:
                choice["feedback"] = feedback
            choices.append(choice)
        if not choices:
            return Read(problem=gettext("a numerical question needs at least one answer."))
        fields = {"kind": self.name, "choices": choices}
        warnings = ()
        units = []
        for unit in element.findall("units/unit"):
            name = (unit.findtext("unit_name") or "").strip()
            if name:  # Moodle writes a nameless unit for a question without units.
                multiplier = (unit.findtext("multiplier") or "1").strip()
                units.append({"name": name, "multiplier": multiplier})
        problems = unit_problems([(unit["name"], unit["multiplier"]) for unit in units])
        if problems:
            return Read(problem="; ".join(problems))
        if units:
            fields["units"] = units
            graded = (element.findtext("unitgradingtype") or "0").strip() in ("1", "2")
            if graded and (element.findtext("showunits") or "").strip() != "3":
                fields["units_required"] = True
                warnings = (
                    gettext(
                        "an answer without its unit is refused here, to be typed again, "
                        "not given fewer marks (Moodle's unit penalty)."
                    ),
                )
            if (element.findtext("unitsleft") or "0").strip() == "1":
                fields["units_left"] = True
        return Read(fields=fields, warnings=warnings)

    def moodle_write(self, element: ET.Element, question: dict, writing: MoodleWriting) -> None:
        for choice in question.get("choices", []):
            value = _file_value(choice, writing)
            written = {**choice, "text": {writing.language: value}}
            weight = 100.0 if choice.get("correct") else float(choice.get("credit") or 0) * 100
            writing.answer(element, written, weight, None)
            answer = element.findall("answer")[-1]
            ET.SubElement(answer, "tolerance").text = _file_tolerance(choice, value)
            percent = str(choice.get("tolerance") or "").strip()
            if percent.endswith("%"):  # Moodle reads the distance, this site the percentage.
                ET.SubElement(answer, "tolerancepercent").text = percent.removesuffix("%")
        units = question.get("units") or []
        if not units:
            return
        written = ET.SubElement(element, "units")
        for unit in units:
            item = ET.SubElement(written, "unit")
            ET.SubElement(item, "multiplier").text = str(unit.get("multiplier", "1"))
            ET.SubElement(item, "unit_name").text = str(unit.get("name", ""))
        # Required: a number without its unit gets no marks (Moodle's whole penalty).
        required = question.get("units_required")
        ET.SubElement(element, "unitgradingtype").text = "1" if required else "0"
        ET.SubElement(element, "unitpenalty").text = "1" if required else "0"
        ET.SubElement(element, "showunits").text = "0"  # Typed with the number.
        ET.SubElement(element, "unitsleft").text = "1" if question.get("units_left") else "0"


def _choice_problems(choice: EditedChoice) -> list[str]:
    found, values = [], set()
    texts = [text.strip() for text in choice.texts.values() if text]
    if texts and all(text == ANY for text in texts):
        return []
    for code, text in choice.texts.items():
        if not text:
            continue
        try:
            values.add(read_number(text, code))
        except NumberError as error:
            found.append(f"{text} ({code}): {error}")
    if not values and not found:
        found.append(gettext("write its value, a number."))
    elif len(values) > 1:
        found.append(gettext("its languages give different numbers."))
    try:
        tolerance = Decimal(choice.tolerance or 0)
    except (InvalidOperation, TypeError, ValueError):
        found.append(gettext("its tolerance is not a number."))
    else:
        if not tolerance.is_finite() or tolerance < 0:
            found.append(gettext("its tolerance must be 0 or more."))
    return found


def _file_value(choice: dict, writing) -> str:
    """A quiz-file choice's value as the formats write it ("1024"), from any of its texts."""
    texts = choice.get("text") or {}
    if isinstance(texts, str):
        texts = {settings.LANGUAGE_CODE: texts}
    for code, text in texts.items():
        try:
            return plain(read_number(text, code))
        except NumberError:
            continue
    return writing.plain(texts)


def _graded(weight: str) -> dict | str:
    """The quiz-file fields of a Moodle weight in percent ("100", "50", "33.33333"): right at
    100, a near miss's credit below, a known mistake at 0; a problem for any other weight."""
    try:
        percent = read_number(weight, "en")
    except NumberError:
        percent = None
    if percent is None or not 0 <= percent <= 100:
        message = gettext("the weight “%(weight)s” is not a percentage from 0 to 100.")
        return message % {"weight": weight}
    if percent == 100:
        return {"correct": True}
    credit = (percent / 100).quantize(CREDIT_STEP)
    return {"correct": False, **({"credit": plain(credit)} if credit else {})}


def _gift_weight(choice: dict) -> str:
    """A quiz-file choice's weight as GIFT writes it: "" when right, "%50%" for a credit."""
    if choice.get("correct"):
        return ""
    with localcontext(_EXACT):
        return f"%{plain(Decimal(str(choice.get('credit') or 0)) * 100)}%"


def _moodle_tolerance(answer: ET.Element, tolerance: Decimal) -> str | None:
    """A Moodle XML answer's tolerance as the quiz file writes it: a distance ("0.5"), or a
    percentage ("1%") where this site's export wrote one (<tolerancepercent>) or the answer
    says it is relative, a fraction of its value (a calculated question's tolerancetype 1).
    None when the percentage is not a number."""
    percent = answer.findtext("tolerancepercent")
    if percent is not None:
        try:
            return plain(read_number(percent, "en")) + "%"
        except NumberError:
            return None
    if (answer.findtext("tolerancetype") or "").strip() == "1":
        with localcontext(_EXACT):
            return plain(tolerance * 100) + "%"
    return plain(tolerance)


def _file_tolerance(choice: dict, value: str) -> str:
    """A quiz-file choice's tolerance as GIFT and Moodle's numerical write it, a distance:
    a percentage of the value ("1%") made the distance it is."""
    tolerance = str(choice.get("tolerance") or "0").strip()
    if not tolerance.endswith("%"):
        return tolerance
    try:
        distance = bound(read_number(value, "en"), read_number(tolerance[:-1], "en"), True)
    except NumberError:
        return "0"
    return plain(Context(prec=MAX_DIGITS).plus(distance))


def _gift_value(answer: str) -> tuple[str, str] | None:
    """A GIFT numerical answer, "3:0.1" or "2..4", as (value, tolerance); None if unread."""
    try:
        if ".." in answer:
            low, high = (read_number(part, "en") for part in answer.split("..", 1))
            with localcontext(_EXACT):
                return plain((low + high) / 2), plain(abs(high - low) / 2)
        value, _colon, tolerance = answer.partition(":")
        return plain(read_number(value, "en")), plain(read_number(tolerance or "0", "en"))
    except NumberError:
        return None


def number_text(number: Decimal | str) -> str:
    """A number as the active language writes it, in groups: "1,024.5", "1 024,5"."""
    if isinstance(number, str):
        number = read_number(number, "en")
    return number_format(Decimal(number).normalize(_EXACT), force_grouping=True)
