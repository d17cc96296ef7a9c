/// <reference lib="dom" />
// The organization's Change plan action: pick a plan, save through OrganizationService.
import React, { useState } from 'react';
import { useNavigate } from 'react-router';
import { ApiClient, useNotice, type ActionProps } from 'adminjs';
import { Box, Button, FormGroup, H3, Label, Text } from '@adminjs/design-system';
import { codeLabel } from './portal-labels.ts';

const api = new ApiClient();
const PLANS = ['standard', 'professional', 'enterprise'];

const ChangePlan: React.FC<ActionProps> = ({ record, resource }) => {
  const [plan, setPlan] = useState(String(record?.params.plan ?? 'standard'));
  const addNotice = useNotice();
  const navigate = useNavigate();
  if (!record) return null;
  const save = async () => {
    const res = await api.recordAction({
      resourceId: resource.id,
      recordId: record.id,
      actionName: 'changePlan',
      method: 'post',
      data: { plan },
    });
    const data = res.data as { notice?: { message: string; type: 'success' | 'error' }; redirectUrl?: string };
    if (data.notice) addNotice(data.notice);
    if (data.redirectUrl && data.notice?.type === 'success') navigate(data.redirectUrl);
  };
  return (
    <Box variant="white" p="xl">
      <H3>Change the plan of {record.params.name}</H3>
      <Text mb="lg">
        Currently {codeLabel(record.params.plan)}. The plan sets the organization&apos;s hourly API quota.
      </Text>
      <FormGroup>
        <Label htmlFor="plan">Plan</Label>
        <select id="plan" name="plan" value={plan} onChange={(e) => setPlan(e.target.value)}>
          {PLANS.map((value) => (
            <option key={value} value={value}>
              {codeLabel(value)}
            </option>
          ))}
        </select>
      </FormGroup>
      <Button data-testid="save-plan" variant="contained" onClick={save}>
        Save plan
      </Button>
    </Box>
  );
};

export default ChangePlan;
