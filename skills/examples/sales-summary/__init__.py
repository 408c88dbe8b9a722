"""Totals, counts and the top groups of a list of records (see SKILL.md)."""


def field(record, path):
    """The value at a dotted path ('customer.region') of nested dicts, or None."""
    value = record
    for part in path.split('.'):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def summarize(records, by, value, where=None, top=5):
    """Groups records by `by` and sums `value` per group, biggest total first."""
    where = where or {}
    groups, matched, skipped, total = {}, 0, 0, 0.0
    for record in records:
        if not isinstance(record, dict):
            skipped += 1
            continue
        if any(field(record, k) != v for k, v in where.items()):
            continue
        amount = field(record, value)
        if isinstance(amount, bool) or not isinstance(amount, (int, float)):
            skipped += 1
            continue
        matched += 1
        total += amount
        group = groups.setdefault(str(field(record, by)), {'count': 0, 'total': 0.0})
        group['count'] += 1
        group['total'] += amount
    ranked = sorted(groups.items(), key=lambda item: item[1]['total'], reverse=True)
    return {
        'records': len(records),
        'matched': matched,
        'skipped': skipped,
        'total': round(total, 2),
        'groups': [{'key': key, 'count': g['count'], 'total': round(g['total'], 2),
                    'mean': round(g['total'] / g['count'], 2)} for key, g in ranked[:top]],
        'omittedGroups': max(0, len(ranked) - top),
    }
