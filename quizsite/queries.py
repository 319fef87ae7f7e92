"""Querysets and inserts compiled to SQL once per database connection, for the queries that
cost a learner page most.

Building a queryset and compiling it cost a learner page several times the CPU of running
its SQL: 0.8 ms of the 0.94 ms that the attempt query took on PostgreSQL (docs/deployment.md).
A `CompiledQuery` is a queryset with a `Placeholder` where each value goes. It is compiled
the first time it runs on a connection; each call then sends the same SQL with its own
values, prepared by the fields they are compared with, and the rows go through the
compiler's converters (looked up once too), so they come back as the queryset itself would
return them.

Only for columns that are not translated: django-modeltranslation rewrites a translated
field's name for the language active when the queryset is built.

A `CompiledInsert` is the same for an INSERT of rows of a model: building a model instance,
saving it and compiling its INSERT cost four times the statement itself (1.5 ms against
0.37 ms for an answer and its pick). It sends no signals: only for models that nothing
listens to. Every column the ORM's INSERT would write, it writes: the fields it is given,
and the others with their model defaults (`default=`, `auto_now_add`, NULL), computed at
each call as `save()` would; a field with none of those it refuses at construction, and a
field with a `db_default` it leaves to the database. No statement of the code uses one
now: the answer's and the attempt's INSERTs each saved under 2% of their request
(bench/compiled.py, bench/README.md).

Neither can drift from the models unseen: every compiled statement is in `REGISTRY`, and
`problems()` checks it against its model's `_meta` as it is now (tests/quizsite/
test_compiled_statements.py runs it for all of them). Constraints need no check: the
database enforces them on these statements as on the ORM's.
"""

from collections import namedtuple
from typing import Any
from weakref import WeakKeyDictionary, WeakSet

from django.core.exceptions import FieldDoesNotExist, ImproperlyConfigured
from django.db import DEFAULT_DB_ALIAS, connections, router
from django.db.models import NOT_PROVIDED, Expression, Field, Model, QuerySet
from django.db.models.expressions import Col
from django.db.models.sql.subqueries import InsertQuery
from modeltranslation.fields import TranslationField
from modeltranslation.translator import NotRegistered, translator

# Every compiled statement made (the tests check them all against the models).
REGISTRY: WeakSet = WeakSet()


class Placeholder(Expression):
    """The value of a call to `CompiledQuery`, compared with the model field of that name:
    `filter(public_id=Placeholder("public_id"))`."""

    def __init__(self, name: str):
        super().__init__()
        self.name = name

    def resolve_expression(self, query=None, *args, **kwargs):
        resolved = super().resolve_expression(query, *args, **kwargs)
        resolved.output_field = query.model._meta.get_field(self.name)
        return resolved

    def as_sql(self, compiler, connection):
        return "%s", [self]


class CompiledQuery:
    """A `values_list()` queryset run with new values: `query(public_id=...)` is its rows,
    named tuples whose fields are the queryset's (`row.quiz__updated_at`)."""

    def __init__(self, queryset: QuerySet):
        self.queryset = queryset
        # The columns in the order values_list() gave them, annotations included.
        self.Row = namedtuple("Row", queryset.query.selected or queryset.query.values_select)
        self._compiled: WeakKeyDictionary = WeakKeyDictionary()  # By connection.
        REGISTRY.add(self)

    def problems(self) -> list[str]:
        """What makes its SQL wrong for the models as they are now: a column it reads or
        filters on that is translated (the SQL would keep one language's column)."""
        compiler = self.queryset.query.get_compiler(using=DEFAULT_DB_ALIAS)
        compiler.setup_query()
        columns = [select[0] for select in compiler.select]
        columns += [expr for expr in _flatten(self.queryset.query.where) if isinstance(expr, Col)]
        problems = []
        for column in columns:
            field = getattr(column, "target", None)
            if field is not None and _is_translated(field):
                problems.append(f"{field.model.__name__}.{field.name} is translated")
        return problems

    def __call__(self, **values: Any) -> list[tuple]:
        connection = connections[router.db_for_read(self.queryset.model)]
        if (compiled := self._compiled.get(connection)) is None:
            compiler = self.queryset.query.get_compiler(connection=connection)
            sql, params = compiler.as_sql()
            # The converters of its columns, which results_iter() would look up at each call.
            columns = [select[0] for select in compiler.select[: compiler.col_count]]
            converters = compiler.get_converters(columns)
            compiled = self._compiled[connection] = (compiler, sql, params, converters)
        compiler, sql, params, converters = compiled
        params = [
            param.output_field.get_db_prep_value(values[param.name], connection)
            if isinstance(param, Placeholder)
            else param
            for param in params
        ]
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
        if converters:
            rows = compiler.apply_converters(rows, converters)
        return [self.Row._make(row) for row in rows]


class CompiledInsert:
    """An INSERT of rows of `model` giving `fields` (field names; a foreign key takes the id):
    `insert(row, ...)`, each row a dict by field name. With `returning_pk`, one row at a time,
    and the call returns the new row's primary key. The one-row INSERT is compiled once; one
    of several rows is compiled at each call (PostgreSQL's takes the values as arrays)."""

    def __init__(self, model: type[Model], *fields: str, returning_pk: bool = False):
        self.model = model
        self.given = [model._meta.get_field(name) for name in fields]
        self.defaulted = _defaulted_fields(model, fields)
        if missing := _required_fields(model, fields):
            raise ImproperlyConfigured(
                f"A compiled INSERT of {model.__name__} must give {', '.join(missing)}: "
                "no default, no db_default, not null."
            )
        self.fields = self.given + self.defaulted  # The INSERT's columns, in this order.
        self.returning_pk = returning_pk
        self._compiled: WeakKeyDictionary = WeakKeyDictionary()  # By connection.
        REGISTRY.add(self)

    def problems(self) -> list[str]:
        """What its compiled INSERT misses of the model as it is now: a field it was given
        that is gone, a field the model gained or that changed its default since."""
        names = [field.name for field in self.given]
        problems = []
        for name in names:
            try:
                self.model._meta.get_field(name)
            except FieldDoesNotExist:
                problems.append(f"{self.model.__name__}.{name} is gone")
        if missing := _required_fields(self.model, names):
            problems.append(f"{self.model.__name__} must be given {', '.join(missing)}")
        defaulted = [field.name for field in _defaulted_fields(self.model, names)]
        if defaulted != [field.name for field in self.defaulted]:
            problems.append(
                f"{self.model.__name__}'s defaulted fields are {defaulted}, compiled with "
                f"{[field.name for field in self.defaulted]}"
            )
        return problems

    def _values(self, row: dict[str, Any]) -> list:
        """The row's values for the INSERT's columns, the model defaults filled in."""
        values = [row[field.name] for field in self.given]
        for field in self.defaulted:
            if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
                values.append(field.pre_save(self.model(), add=True))
            else:
                values.append(field.get_default())
        return values

    def _as_sql(self, connection, rows) -> tuple[str, tuple]:
        query = InsertQuery(self.model)
        objs = [
            self.model(
                **{f.attname: v for f, v in zip(self.fields, self._values(row), strict=True)}
            )
            for row in rows
        ]
        query.insert_values(self.fields, objs)
        compiler = query.get_compiler(connection=connection)
        if self.returning_pk:
            compiler.returning_fields = [self.model._meta.pk]
        ((sql, params),) = compiler.as_sql()
        return sql, params

    def __call__(self, *rows: dict[str, Any]) -> Any:
        if self.returning_pk and len(rows) != 1:
            raise ValueError("An insert that returns the primary key takes one row.")
        connection = connections[router.db_for_write(self.model)]
        if len(rows) > 1:
            sql, params = self._as_sql(connection, rows)
        else:
            if (sql := self._compiled.get(connection)) is None:
                sql = self._compiled[connection] = self._as_sql(connection, rows)[0]
            params = [
                field.get_db_prep_save(value, connection)
                for field, value in zip(self.fields, self._values(rows[0]), strict=True)
            ]
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            if not self.returning_pk:
                return None
            if connection.features.can_return_columns_from_insert:
                return cursor.fetchone()[0]
            meta = self.model._meta
            return connection.ops.last_insert_id(cursor, meta.db_table, meta.pk.column)


def _written(field: Field) -> bool:
    """Whether the ORM's INSERT writes the field: a concrete column, not an auto primary key,
    not left to the database's default."""
    return (
        field.concrete
        and not (field.primary_key and getattr(field, "db_returning", False))
        and field.db_default is NOT_PROVIDED
    )


def _has_model_default(field: Field) -> bool:
    return (
        field.has_default()
        or field.null
        or getattr(field, "auto_now", False)
        or getattr(field, "auto_now_add", False)
    )


def _defaulted_fields(model: type[Model], given) -> list[Field]:
    """The fields an INSERT giving `given` writes with their model defaults."""
    return [
        field
        for field in model._meta.concrete_fields
        if _written(field) and field.name not in given and _has_model_default(field)
    ]


def _required_fields(model: type[Model], given) -> list[str]:
    """The fields an INSERT must be given: written, and without a model default."""
    return [
        field.name
        for field in model._meta.concrete_fields
        if _written(field) and field.name not in given and not _has_model_default(field)
    ]


def _is_translated(field: Field) -> bool:
    if isinstance(field, TranslationField):
        return True
    try:
        return field.name in translator.get_options_for_model(field.model).all_fields
    except NotRegistered:
        return False


def _flatten(node):
    """Every expression of a WHERE tree."""
    for child in getattr(node, "children", ()):
        yield child
        yield from _flatten(child)
    if hasattr(node, "get_source_expressions"):
        for source in node.get_source_expressions():
            if source is not None:
                yield source
                yield from _flatten(source)
