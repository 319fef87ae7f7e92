"""Calculated questions: a number worked out from values drawn for each attempt.

The editor declares variables (`Question.variables`: each a range with a step, or a set
of values) and writes each choice's text as a formula of them: the correct one's is the
answer ("workers * local_batch * steps"), the others known mistakes with their feedback
("workers * local_batch": the accumulation steps are left out). Each attempt draws one
value of each variable from a digest of its public id and the question's id (`draw`): no
state is kept, and the attempt sees the same values on reload, resume and review; a retry
or a practice, a new attempt, draws again. `{workers}` in the prompt, the explanation and
the feedback shows the drawn value as the page's language writes numbers.

Once drawn, a question is a numerical one: its choices' texts are the formulas' values
(`drawn_values`, which quizzes/snapshots.py makes into a QuestionContent), matched and
graded by the numerical kind's rules. Formulas are evaluated by simpleeval over Decimals,
never `eval`, within bounds (`evaluate`): a formula that fails on a variant the editor's
checks try (all of them for a small question, else a fixed sample and the bounds) is
refused, in the admin and every import.
"""

import ast
import json
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from decimal import (
    Context,
    Decimal,
    DecimalException,
    DivisionByZero,
    InvalidOperation,
    Overflow,
    localcontext,
)
from functools import lru_cache
from hashlib import blake2b
from itertools import islice, product
from xml.etree import ElementTree as ET

import simpleeval
from django.utils import translation
from django.utils.formats import number_format
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from quizzes.kinds.base import EditedChoice, GiftReading, GiftWriting, MoodleReading, Read
from quizzes.kinds.numerical import (
    MAX_EXPONENT,
    NumberError,
    Numerical,
    _choice_problems,
    plain,
    read_number,
)

MAX_VARIABLES = 10
MAX_VALUES = 1000  # Of one variable: a range of a million values is refused.
MAX_FORMULA = 500  # Characters.
MAX_POWER = 100  # The largest exponent of `**` and pow().
CHECKED_ALL = 200  # Every variant is checked up to this many; beyond, a sample and the bounds.
SAMPLE = 100
SIGNIFICANT = 15  # A formula's value, rounded to this many significant digits.
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,29}", re.ASCII)
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]{0,29})\}", re.ASCII)
# Values far beyond what a learner types, but no further: 10 ** 100 ** 100 stops at once.
_BOUNDED = Context(prec=40, Emax=999, Emin=-999, traps=[InvalidOperation, DivisionByZero, Overflow])
_ROUNDED = Context(prec=SIGNIFICANT)


class FormulaError(ValueError):
    """A formula that can't be evaluated, or not on some variant; its message says why."""


@dataclass(frozen=True)
class Variable:
    """A variable: `values` (a set), or the range from `low` to `high` by `step`."""

    name: str
    low: Decimal = Decimal(0)
    high: Decimal = Decimal(0)
    step: Decimal = Decimal(1)
    values: tuple[Decimal, ...] = ()

    @property
    def count(self) -> int:
        if self.values:
            return len(self.values)
        return int((self.high - self.low) // self.step) + 1

    def at(self, index: int) -> Decimal:
        if self.values:
            return self.values[index]
        with localcontext(_BOUNDED):
            return self.low + index * self.step

    def stored(self) -> dict:
        """As `Question.variables` and the quiz file keep it."""
        if self.values:
            return {"name": self.name, "values": [plain(value) for value in self.values]}
        found = {"name": self.name, "min": plain(self.low), "max": plain(self.high)}
        return found if self.step == 1 else {**found, "step": plain(self.step)}


def parse_variables(raw) -> tuple[tuple[Variable, ...], list[str]]:
    """The variables of `Question.variables` or a quiz file's `variables` (a list of
    {name, min, max, step} or {name, values}), and what is wrong with them."""
    if raw in (None, "", []):
        return (), []
    if not isinstance(raw, list):
        return (), [gettext("the variables must be a list.")]
    if len(raw) > MAX_VARIABLES:
        message = gettext("at most %(count)s variables.")
        return (), [message % {"count": MAX_VARIABLES}]
    found, problems, names = [], [], set()
    for number, item in enumerate(raw, 1):
        try:
            variable = _variable(item)
        except ValueError as error:
            message = gettext("variable %(number)s: %(problem)s")
            problems.append(message % {"number": number, "problem": error})
            continue
        if variable.name in names:
            message = gettext("the variable %(name)s is declared twice.")
            problems.append(message % {"name": variable.name})
        names.add(variable.name)
        found.append(variable)
    return (() if problems else tuple(found)), problems


def _variable(item) -> Variable:
    if not isinstance(item, dict):
        raise ValueError(gettext("write it as a name with min and max, or with values."))
    name = item.get("name")
    if not isinstance(name, str) or not _NAME.fullmatch(name) or name in _FUNCTIONS:
        raise ValueError(
            gettext("its name must be letters, digits and _ (30 at most), not a function’s.")
        )
    unknown = set(item) - {"name", "min", "max", "step", "values"}
    if unknown:
        message = gettext("“%(field)s” is not a field of a variable.")
        raise ValueError(message % {"field": sorted(map(str, unknown))[0]})
    if "values" in item:
        if {"min", "max", "step"} & set(item):
            raise ValueError(gettext("give either values or min and max, not both."))
        values = item["values"]
        if not isinstance(values, list) or not values:
            raise ValueError(gettext("its values must be a list of numbers."))
        if len(values) > MAX_VALUES:
            message = gettext("it has more than %(count)s values.")
            raise ValueError(message % {"count": MAX_VALUES})
        return Variable(name, values=tuple(_number(value) for value in values))
    if "min" not in item or "max" not in item:
        raise ValueError(gettext("give its min and max, or its values."))
    low, high = _number(item["min"]), _number(item["max"])
    step = _number(item.get("step", 1))
    if step <= 0:
        raise ValueError(gettext("its step must be more than 0."))
    if high < low:
        raise ValueError(gettext("its max must be at least its min."))
    with localcontext(_BOUNDED):
        if (high - low) / step >= MAX_VALUES:
            message = gettext("its range has more than %(count)s values: take a larger step.")
            raise ValueError(message % {"count": MAX_VALUES})
    return Variable(name, low, high, step)


def _number(value) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, int | float | str | Decimal):
        raise ValueError(gettext("its numbers must be numbers."))
    try:
        return read_number(str(value), "en")
    except NumberError as error:
        raise ValueError(str(error)) from None


def stored_variables(variables: Iterable[Variable]) -> list[dict]:
    return [variable.stored() for variable in variables]


# What a formula may use besides its variables: Decimal arithmetic, nothing else.
def _power(base: Decimal, exponent: Decimal) -> Decimal:
    if abs(exponent) > MAX_POWER:
        message = gettext("an exponent is over %(count)s.")
        raise FormulaError(message % {"count": MAX_POWER})
    return base**exponent


def _rounded(value: Decimal, places: Decimal = Decimal(0)) -> Decimal:
    if places != places.to_integral_value() or not 0 <= places <= 30:
        raise FormulaError(gettext("round() takes 0 to 30 decimal places."))
    return value.quantize(Decimal(1).scaleb(-int(places)))


_FUNCTIONS = {
    "abs": abs,
    "ceil": lambda x: Decimal(math.ceil(x)),
    "exp": lambda x: x.exp(),
    "floor": lambda x: Decimal(math.floor(x)),
    "log": lambda x: x.ln(),
    "log10": lambda x: x.log10(),
    "max": max,
    "min": min,
    "pi": lambda: Decimal("3.141592653589793238462643383279502884"),
    "pow": _power,
    "round": _rounded,
    "sqrt": lambda x: x.sqrt(),
}
_OPERATORS = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.Mod: lambda a, b: a % b,
    ast.Pow: _power,
    ast.USub: lambda a: -a,
    ast.UAdd: lambda a: +a,
}


class _Evaluator(simpleeval.SimpleEval):
    """simpleeval over Decimals: numbers in a formula are read as Decimals, any other
    constant (a text) is refused."""

    def _eval_attribute(self, node):
        raise FormulaError(gettext("a formula is made of numbers, variables and + - * / **."))

    def _eval_subscript(self, node):
        raise FormulaError(gettext("a formula is made of numbers, variables and + - * / **."))

    def _eval_constant(self, node):
        if isinstance(node.value, bool) or not isinstance(node.value, int | float):
            raise FormulaError(gettext("a formula is made of numbers, variables and + - * / **."))
        return Decimal(repr(node.value))


def formula_names(formula: str) -> set[str]:
    """The variables a formula names (a formula that doesn't parse names none)."""
    try:
        tree = ast.parse(formula.strip(), mode="eval")
    except (SyntaxError, ValueError):
        return set()
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)} - set(_FUNCTIONS)


@lru_cache(maxsize=1024)  # A question's formulas, parsed once for all their variants.
def _parsed(formula: str) -> ast.AST:
    """One expression (`a; b` or `a = 1` are refused, not read as `a`), for simpleeval."""
    return ast.parse(formula, mode="eval").body


def evaluate(formula: str, values: dict[str, Decimal]) -> Decimal:
    """The formula's value for these values of its variables, rounded to SIGNIFICANT
    digits; FormulaError, saying why, when it has none or one no learner could type (past
    1e±MAX_EXPONENT)."""
    formula = formula.strip()
    if not formula:
        raise FormulaError(gettext("write a formula."))
    if len(formula) > MAX_FORMULA:
        message = gettext("a formula is %(count)s characters at most.")
        raise FormulaError(message % {"count": MAX_FORMULA})
    evaluator = _Evaluator(operators=_OPERATORS, functions=_FUNCTIONS, names=values)
    try:
        tree = _parsed(formula)
        with localcontext(_BOUNDED):
            value = evaluator.eval(formula, previously_parsed=tree)
    except ZeroDivisionError:
        raise FormulaError(gettext("it divides by zero.")) from None
    except simpleeval.NameNotDefined as error:
        message = gettext("“%(name)s” is not a variable.")
        raise FormulaError(message % {"name": error.name}) from None
    except FormulaError:
        raise
    except (SyntaxError, simpleeval.InvalidExpression, LookupError, TypeError, ValueError):
        message = gettext("“%(formula)s” is not a formula: write it as workers * local_batch.")
        raise FormulaError(message % {"formula": formula[:80]}) from None
    except (ArithmeticError, DecimalException):
        message = gettext("its value is not a number (too large, or undefined).")
        raise FormulaError(message) from None
    except RecursionError:
        raise FormulaError(gettext("it is nested too deeply.")) from None
    if not isinstance(value, Decimal) or not value.is_finite():
        raise FormulaError(gettext("its value is not a number (too large, or undefined)."))
    value = _ROUNDED.plus(value)
    if value and not -MAX_EXPONENT <= value.adjusted() <= MAX_EXPONENT:
        message = gettext("its value %(value)s is beyond 1e%(n)s, which no learner types.")
        raise FormulaError(message % {"value": f"{value:.3E}", "n": MAX_EXPONENT})
    return value


def seed_of(public_id, question_id: int) -> str:
    """What an attempt's variant of a question is drawn from."""
    return f"{public_id}:{question_id}"


def draw(variables: tuple[Variable, ...], seed: str) -> dict[str, Decimal]:
    """One value of each variable, the same for the same seed (an attempt's public id and a
    question's id), in every process."""
    values = {}
    for variable in variables:
        digest = blake2b(f"{seed}:{variable.name}".encode(), digest_size=8).digest()
        values[variable.name] = variable.at(int.from_bytes(digest) % variable.count)
    return values


def variant_key(variables, public_id, question_id: int) -> str:
    """The variant an attempt drew of a question, as `Answer.variant` keeps it: its values
    in order, as JSON ("" for a question without variables)."""
    parsed = variables if isinstance(variables, tuple) else parse_variables(variables)[0]
    if not parsed:
        return ""
    values = draw(parsed, seed_of(public_id, question_id))
    return json.dumps([[name, str(value)] for name, value in values.items()])


def variant_values(key: str) -> tuple[tuple[str, Decimal], ...]:
    """The values of a `variant_key`, in order."""
    return tuple((name, Decimal(value)) for name, value in json.loads(key)) if key else ()


def variants(variables: tuple[Variable, ...]) -> Iterator[dict[str, Decimal]]:
    """The variants the editor's checks try: all of them up to CHECKED_ALL; beyond, every
    variable at its bounds (all at their least, all at their most) and a fixed sample."""
    total = math.prod(variable.count for variable in variables)
    if total <= CHECKED_ALL:
        for indexes in product(*(range(variable.count) for variable in variables)):
            yield {v.name: v.at(i) for v, i in zip(variables, indexes, strict=True)}
        return
    yield {variable.name: variable.at(0) for variable in variables}
    yield {variable.name: variable.at(variable.count - 1) for variable in variables}
    for number in range(SAMPLE):
        yield draw(variables, f"check:{number}")


def preview(variables: tuple[Variable, ...], count: int = 5) -> list[dict[str, Decimal]]:
    """A few variants to show the editor: the first ones checked, then drawn ones."""
    shown = list(islice(variants(variables), 2))
    shown += [draw(variables, f"preview:{number}") for number in range(count - len(shown))]
    return shown


def shown(value: Decimal, language: str) -> str:
    """A value as `language` writes numbers, in groups: "1,024.5", "1 024,5"."""
    return _written(str(value), language)


# By the value's exact digits: every text of a drawn question writes the same few values in
# each language (its prompt, its explanation, their HTML, each choice's feedback), and other
# attempts draw them again.
@lru_cache(maxsize=4096)
def _written(value: str, language: str) -> str:
    with translation.override(language):
        return number_format(Decimal(value).normalize(_BOUNDED), force_grouping=True)


def substitute(text: str, values: dict[str, Decimal], language: str) -> str:
    """`text` with each {name} of a drawn variable written as its value in `language`."""
    if "{" not in text:
        return text
    return _PLACEHOLDER.sub(
        lambda match: (
            shown(values[match.group(1)], language) if match.group(1) in values else match.group(0)
        ),
        text,
    )


def drawn_values(variables, choices: Iterable, seed: str) -> tuple[dict, dict]:
    """The drawn values and each choice's value ({pk: Decimal, None when it fails}), for a
    question's variables and ChoiceContents whose texts are formulas."""
    parsed = variables if isinstance(variables, tuple) else parse_variables(variables)[0]
    values = draw(parsed, seed)
    results = {}
    for choice in choices:
        try:
            results[choice.pk] = evaluate(formula_of(dict(choice.text.by_language)), values)
        except FormulaError:
            results[choice.pk] = None
    return values, results


def formula_of(texts: dict[str, str]) -> str:
    """A choice's formula: the same in every language it is written in (the first)."""
    return next((text for text in texts.values() if text and text.strip()), "")


class Calculated(Numerical):
    name = "calculated"
    label = _("Calculated")
    review_template = "quizzes/_calculated_review.html"  # The values drawn, then as numerical.
    moodle_type = "calculatedsimple"
    moodle_also_reads = ("calculated",)  # Its datasets private (shared ones are not kept).

    def value_problems(self, choices: list[EditedChoice]) -> list[str]:
        found = []
        for number, choice in enumerate(choices, 1):
            texts = {text.strip() for text in choice.texts.values() if text and text.strip()}
            problems = [] if texts else [gettext("write its formula.")]
            if len(texts) > 1:
                problems.append(gettext("its languages give different formulas."))
            # Its tolerance as a numerical value's (a formula is no number: leave that out).
            numbered = EditedChoice(texts={"en": "0"}, tolerance=choice.tolerance)
            problems += _choice_problems(numbered)
            found += [
                gettext("formula %(number)s: %(problem)s") % {"number": number, "problem": problem}
                for problem in problems
            ]
        return found

    def variable_problems(self, variables, choices: list[EditedChoice]) -> list[str]:
        parsed, found = parse_variables(variables)
        if found:
            return found
        if not parsed:
            return [gettext("declare at least one variable.")]
        formulas = [(number, formula_of(choice.texts)) for number, choice in enumerate(choices, 1)]
        formulas = [(number, formula) for number, formula in formulas if formula]
        declared = {variable.name for variable in parsed}
        for number, formula in formulas:
            unknown = formula_names(formula) - declared
            if unknown:
                message = gettext("formula %(number)s: “%(name)s” is not a variable.")
                return [message % {"number": number, "name": sorted(unknown)[0]}]
        for values in variants(parsed):
            for number, formula in formulas:
                try:
                    evaluate(formula, values)
                except FormulaError as error:
                    message = gettext("formula %(number)s fails for %(values)s: %(problem)s")
                    named = ", ".join(f"{name} = {plain(value)}" for name, value in values.items())
                    return [message % {"number": number, "values": named, "problem": error}]
        return []

    has_variables = True
    in_gift = False

    def gift_claims(self, answers: str) -> bool:
        return False

    def gift_read(self, answers: str, reading: GiftReading, inherited_format: str) -> Read:
        raise NotImplementedError("GIFT has no calculated questions.")

    def gift_write(self, question: dict, writing: GiftWriting, general: str) -> list[str]:
        raise NotImplementedError("GIFT has no calculated questions.")

    def moodle_read(self, element: ET.Element, reading: MoodleReading) -> Read:
        """Moodle's calculatedsimple (and calculated of the same shape): the formulas with
        {a} for a variable, their tolerance (nominal, 1; relative and geometric are not
        kept), the variables' ranges of their dataset definitions (each a uniform range,
        its decimals the step) or their items (a set)."""
        variables = []
        for definition in element.findall("dataset_definitions/dataset_definition"):
            read = _moodle_variable(definition)
            if isinstance(read, str):
                return Read(problem=read)
            variables.append(read)
        parsed, problems = parse_variables(variables)
        if problems:
            return Read(problem=problems[0])
        choices = []
        warnings = []
        for answer in element.findall("answer"):
            if (answer.findtext("text") or "").strip() == "*":
                message = gettext(
                    "a “*” answer (any other number) is not kept: its feedback is lost."
                )
                warnings.append(message)
                continue
            formula = re.sub(r"\{([A-Za-z_][A-Za-z0-9_]*)\}", r"\1", answer.findtext("text") or "")
            try:
                weight = float(answer.get("fraction", "0"))
                tolerance = plain(read_number(answer.findtext("tolerance") or "0", "en"))
            except (NumberError, ValueError):
                message = gettext("the tolerance of “%(answer)s” is not a number.")
                return Read(problem=message % {"answer": formula.strip()})
            if weight not in (0.0, 100.0):
                message = gettext("partial credit (%(weight)s%%) is not kept: credit is 100 or 0.")
                return Read(problem=message % {"weight": f"{weight:g}"})
            if (answer.findtext("tolerancetype") or "2").strip() not in ("2", "nominal"):
                message = gettext("a relative or geometric tolerance is not kept: only nominal.")
                return Read(problem=message)
            choice = {"text": {reading.language: formula.strip()}, "correct": weight == 100.0}
            if tolerance != "0":
                choice["tolerance"] = tolerance
            feedback = reading.text(answer.find("feedback"))
            if feedback:
                choice["feedback"] = feedback
            choices.append(choice)
        if not choices:
            return Read(problem=gettext("a calculated question needs at least one formula."))
        edited = [EditedChoice(texts=choice["text"]) for choice in choices]
        problems = self.variable_problems(stored_variables(parsed), edited)
        if problems:
            return Read(problem=problems[0])
        fields = {"kind": self.name, "variables": stored_variables(parsed), "choices": choices}
        return Read(fields=fields, warnings=tuple(warnings))

    def moodle_write(self, element: ET.Element, question: dict, writing) -> None:
        parsed, _problems = parse_variables(question.get("variables"))
        names = "|".join(re.escape(variable.name) for variable in parsed) or "(?!)"
        for choice in question.get("choices", []):
            formula = re.sub(rf"\b({names})\b", r"{\1}", formula_of(choice.get("text") or {}))
            written = {**choice, "text": {writing.language: formula}}
            writing.answer(element, written, 100.0 if choice.get("correct") else 0.0, None)
            answer = element.findall("answer")[-1]
            ET.SubElement(answer, "tolerance").text = str(choice.get("tolerance") or "0")
            ET.SubElement(answer, "tolerancetype").text = "2"
            ET.SubElement(answer, "correctanswerformat").text = "2"
            ET.SubElement(answer, "correctanswerlength").text = "9"
        definitions = ET.SubElement(element, "dataset_definitions")
        for variable in parsed:
            definition = ET.SubElement(definitions, "dataset_definition")
            ET.SubElement(ET.SubElement(definition, "status"), "text").text = "private"
            ET.SubElement(ET.SubElement(definition, "name"), "text").text = variable.name
            ET.SubElement(ET.SubElement(definition, "type"), "text").text = "calculatedsimple"
            ET.SubElement(ET.SubElement(definition, "distribution"), "text").text = "uniform"
            values = [variable.at(index) for index in range(variable.count)]
            low, high = min(values), max(values)
            decimals = max(-value.normalize().as_tuple().exponent for value in values)
            ET.SubElement(ET.SubElement(definition, "minimum"), "text").text = plain(low)
            ET.SubElement(ET.SubElement(definition, "maximum"), "text").text = plain(high)
            ET.SubElement(ET.SubElement(definition, "decimals"), "text").text = str(
                max(decimals, 0)
            )
            ET.SubElement(definition, "itemcount").text = str(len(values))
            items = ET.SubElement(definition, "dataset_items")
            for number, value in enumerate(values, 1):
                item = ET.SubElement(items, "dataset_item")
                ET.SubElement(item, "number").text = str(number)
                ET.SubElement(item, "value").text = plain(value)
            ET.SubElement(definition, "number_of_items").text = str(len(values))


def _moodle_variable(definition: ET.Element) -> dict | str:
    """A Moodle dataset definition as a variable: its items (the values Moodle draws from),
    a range with a step when they are one (as our export writes a range), else a set; a
    definition without items, its range by its decimals. A text: why it is left out."""
    name = (definition.findtext("name/text") or "").strip()
    items = []
    for item in definition.findall("dataset_items/dataset_item"):
        try:
            items.append(read_number((item.findtext("value") or "").strip(), "en"))
        except NumberError:
            message = gettext("the variable {%(name)s} has a value that is not a number.")
            return message % {"name": name}
    low = (definition.findtext("minimum/text") or "").strip()
    high = (definition.findtext("maximum/text") or "").strip()
    decimals = (definition.findtext("decimals/text") or "0").strip()
    if items:
        values = sorted(set(items))
        steps = {b - a for a, b in zip(values, values[1:], strict=False)}
        bounds = (plain(values[0]), plain(values[-1]))
        if len(steps) <= 1 and bounds == (_plain_or(low), _plain_or(high)):
            found = {"name": name, "min": bounds[0], "max": bounds[1]}
            step = steps.pop() if steps else Decimal(1)
            return found if step == 1 else {**found, "step": plain(step)}
        return {"name": name, "values": [plain(value) for value in values]}
    if not (low and high and decimals.isdigit() and int(decimals) <= 10):
        message = gettext("the variable {%(name)s} has no range and no values.")
        return message % {"name": name}
    return {"name": name, "min": low, "max": high, "step": plain(Decimal(1).scaleb(-int(decimals)))}


def _plain_or(text: str) -> str:
    """A number of a Moodle file as `plain` writes it, or the text as it is."""
    try:
        return plain(read_number(text, "en"))
    except NumberError:
        return text
