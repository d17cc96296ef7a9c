/// <reference lib="dom" />
// AdminJS's date filter, sending the calendar day the admin picked (2026-11-29) instead of that day's
// local midnight as a UTC time: east of UTC that time falls on the day before (Auckland's 29 November
// was sent as 2026-11-28T11:00:00.000Z), and the server, which reads a range as whole UTC days, found
// the wrong day. The picker reads a bare day as local midnight again, so a reopened drawer shows it.
import React from 'react';
import { DatePicker, FormGroup, Label } from '@adminjs/design-system';
import { PropertyLabel, useTranslation, type FilterPropertyProps } from 'adminjs';

const pad = (n: number) => String(n).padStart(2, '0');

/** The picked day in the browser's calendar, as YYYY-MM-DD (AdminJS hands over an ISO time). */
const pickedDay = (value: string | null): string => {
  const date = value ? new Date(value) : undefined;
  if (!date || Number.isNaN(date.getTime())) return '';
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
};

const PortalDateFilter: React.FC<FilterPropertyProps> = ({ property, filter, onChange }) => {
  const { translateProperty } = useTranslation();
  const bound = (name: 'from' | 'to') => {
    const key = `${property.path}~~${name}`;
    return <DatePicker value={filter[key]} onChange={(date) => onChange(key, pickedDay(date))} propertyType="date" />;
  };
  return (
    <FormGroup variant="filter">
      <PropertyLabel property={property} filter />
      <Label>{`- ${translateProperty('from')}: `}</Label>
      {bound('from')}
      <Label mt="default">{`- ${translateProperty('to')}: `}</Label>
      {bound('to')}
    </FormGroup>
  );
};

export default PortalDateFilter;
