"""`__in` on an integer column with a value out of its range matches nothing for that value.

Django's `exact`, `gt` and the like already treat such a value so (IntegerFieldOverflow), but
`in` hands it to the database driver, and SQLite's raises OverflowError: a form that looks up
posted ids (the admin's many-to-many fields, `ModelMultipleChoiceField`) failed with a 500 on
"9223372036854775808". Registered on the integer fields (auto fields are ones) and on the
foreign keys, whose lookups are their own.
"""

from django.db.models import ForeignObject, IntegerField
from django.db.models.fields.related_lookups import RelatedIn
from django.db.models.lookups import In


class _InRange:
    def process_rhs(self, compiler, connection):
        field = self.lhs.output_field
        targets = getattr(field, "foreign_related_fields", (field,))
        internal_type = targets[0].get_internal_type() if len(targets) == 1 else ""
        if self.rhs_is_direct_value() and internal_type in connection.ops.integer_field_ranges:
            low, high = connection.ops.integer_field_range(internal_type)
            self.rhs = [
                value
                for value in self.rhs
                if not isinstance(value, int)
                or ((low is None or value >= low) and (high is None or value <= high))
            ]
        return super().process_rhs(compiler, connection)


@IntegerField.register_lookup
class IntegerFieldIn(_InRange, In):
    pass


@ForeignObject.register_lookup
class ForeignKeyIn(_InRange, RelatedIn):
    pass
