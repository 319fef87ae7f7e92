"""Querysets and inserts compiled to SQL once per database connection, for the queries of
every learner page and the writes of every answer.

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
0.37 ms for an answer and its pick). It sends no signals, and the fields it does not give
get no Python default (`default=`): only for models that nothing listens to, whose other
fields it does not need.
"""

from collections import namedtuple
from typing import Any
from weakref import WeakKeyDictionary

from django.db import connections, router
from django.db.models import Expression, Model, QuerySet
from django.db.models.sql.subqueries import InsertQuery


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
        self.fields = [model._meta.get_field(name) for name in fields]
        self.returning_pk = returning_pk
        self._compiled: WeakKeyDictionary = WeakKeyDictionary()  # By connection.

    def _as_sql(self, connection, rows) -> tuple[str, tuple]:
        query = InsertQuery(self.model)
        objs = [self.model(**{f.attname: row[f.name] for f in self.fields}) for row in rows]
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
                field.get_db_prep_save(rows[0][field.name], connection) for field in self.fields
            ]
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            if not self.returning_pk:
                return None
            if connection.features.can_return_columns_from_insert:
                return cursor.fetchone()[0]
            meta = self.model._meta
            return connection.ops.last_insert_id(cursor, meta.db_table, meta.pk.column)
