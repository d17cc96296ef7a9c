/// <reference lib="dom" />
// AdminJS's filter drawer, closed once its filters are applied or reset: it stayed open over the list
// it had just filtered, and a second click on its close button was needed to read the result. Paging
// and sorting leave it as it is; a page opened with filters in its address starts as AdminJS has it.
import React, { useEffect, useRef } from 'react';
import { useDispatch } from 'react-redux';
import { useLocation } from 'react-router';

type Props = { OriginalComponent?: React.ComponentType<Record<string, unknown>> } & Record<string, unknown>;

/** The filters in a query string, in a stable order. */
const filtersOf = (search: string) =>
  [...new URLSearchParams(search)]
    .filter(([key]) => key.startsWith('filters.'))
    .map(([key, value]) => `${key}=${value}`)
    .sort()
    .join('&');

const FilterDrawer: React.FC<Props> = ({ OriginalComponent, ...rest }) => {
  const dispatch = useDispatch();
  const filters = filtersOf(useLocation().search);
  const applied = useRef(filters);
  useEffect(() => {
    if (applied.current === filters) return;
    applied.current = filters;
    dispatch({ type: 'CLOSE_FILTER_DRAWER', isVisible: false }); // AdminJS's hideFilterDrawer()
  }, [filters, dispatch]);
  return OriginalComponent ? <OriginalComponent {...rest} /> : null;
};

export default FilterDrawer;
