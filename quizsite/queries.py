"""Querysets compiled to SQL once per database connection, for the queries of every learner page.

Building a queryset and compiling it cost a learner page several times the CPU of running
its SQL: 0.8 ms of the 0.94 ms that the attempt query took on PostgreSQL (docs/deployment.md).
A `CompiledQuery` is a queryset with a `Placeholder` where each value goes. It is compiled
the first time it runs on a connection; each call then sends the same SQL with its own
values, prepared by the fields they are compared with, and the rows go through the
compiler's converters, so they come back as the queryset itself would return them.

Only for columns that are not translated: django-modeltranslation rewrites a translated
field's name for the language active when the queryset is built.
"""

from collections import namedtuple
from typing import Any
from weakref import WeakKeyDictionary

from django.db import connections, router
from django.db.models import Expression, QuerySet


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
        self.Row = namedtuple("Row", queryset.query.values_select)
        self._compiled: WeakKeyDictionary = WeakKeyDictionary()  # By connection.

    def __call__(self, **values: Any) -> list[tuple]:
        connection = connections[router.db_for_read(self.queryset.model)]
        if (compiled := self._compiled.get(connection)) is None:
            compiler = self.queryset.query.get_compiler(connection=connection)
            compiled = self._compiled[connection] = (compiler, *compiler.as_sql())
        compiler, sql, params = compiled
        params = [
            param.output_field.get_db_prep_value(values[param.name], connection)
            if isinstance(param, Placeholder)
            else param
            for param in params
        ]
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
        return [
            self.Row._make(row)
            for row in compiler.results_iter(results=[rows], tuple_expected=True)
        ]
