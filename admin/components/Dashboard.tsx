/// <reference lib="dom" />
// The portal's home page: what a platform admin checks first, and their own MFA state with a way to enrol.
import React, { useCallback, useEffect, useState } from 'react';
import { useSelector } from 'react-redux';
import { ApiClient } from 'adminjs';
import { Box, Button, H2, H4, Input, Label, Link, Text } from '@adminjs/design-system';
import { RESOURCE_OF_KIND } from './record-resources.ts';
import { codeLabel } from './portal-labels.ts';
import { portalTime } from './portal-time.ts';

interface Figures {
  usersByStatus: Record<string, number>;
  usersByRole: Record<string, number>;
  newUsers: { last7Days: number; last30Days: number };
  organizationsByPlan: Record<string, number>;
  openImpersonations: number;
  recentAudit: Array<{
    id: string;
    occurredAt: string;
    action: string;
    actorType: string;
    actorId: string | null;
    actorName: string | null;
    targetType: string;
    targetId: string | null;
  }>;
  failingJobs: number;
  failingWebhookDeliveries: number;
  unsentOutbox: number;
  mfa: { enabled: boolean };
  labels: { roles: Record<string, string>; statuses: Record<string, string>; plans: Record<string, string> };
}

const api = new ApiClient();

// The navigation opens on the Platform group (Users first) the first time; after that AdminJS keeps
// the groups the admin opened or closed in localStorage ('sidebarElements'). This runs when the
// components bundle loads, before the sidebar first renders.
try {
  if (typeof window !== 'undefined' && window.localStorage.getItem('sidebarElements') === null) {
    window.localStorage.setItem('sidebarElements', JSON.stringify({ Platform: true }));
  }
} catch {
  // storage disabled: AdminJS's default (groups closed)
}

const Card: React.FC<{ title: string; testId: string; children: React.ReactNode }> = ({ title, testId, children }) => (
  <Box data-testid={testId} variant="white" p="lg" m="default" style={{ minWidth: 260, flex: '1 1 260px' }}>
    <H4>{title}</H4>
    {children}
  </Box>
);

const Counts: React.FC<{ counts: Record<string, number>; labels?: Record<string, string> }> = ({ counts, labels }) => (
  <table>
    <tbody>
      {Object.entries(counts).length === 0 && (
        <tr>
          <td>none</td>
        </tr>
      )}
      {Object.entries(counts).map(([key, n]) => (
        <tr key={key}>
          <td style={{ paddingRight: 16 }}>{labels?.[key] ?? key}</td>
          <td>{n}</td>
        </tr>
      ))}
    </tbody>
  </table>
);

/** `label`: the words for one, then for any other count ("1 failing job", "0 failing jobs"). */
const Figure: React.FC<{ n: number; href: string; label: [string, string] }> = ({ n, href, label }) => (
  <Text>
    <Link href={href}>
      <strong>{n}</strong> {n === 1 ? label[0] : label[1]}
    </Link>
  </Text>
);

const MfaCard: React.FC<{ enabled: boolean; rootPath: string; onEnabled: () => void }> = ({
  enabled,
  rootPath,
  onEnabled,
}) => {
  const [enrollment, setEnrollment] = useState<{ secret: string; otpauthUri: string } | null>(null);
  const [code, setCode] = useState('');
  const [message, setMessage] = useState('');
  const post = async (path: string, body?: object) => {
    const res = await fetch(`${rootPath}${path}`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body ?? {}),
    });
    const answer = (await res.json().catch(() => ({}))) as Record<string, string>;
    return { ok: res.ok, body: answer, retryAfter: Number(res.headers.get('retry-after') ?? 0) };
  };
  const start = async () => {
    const res = await post('/mfa/enrollment');
    if (res.ok) setEnrollment({ secret: res.body.secret!, otpauthUri: res.body.otpauthUri! });
    else setMessage(res.body.message ?? 'Enrolment failed');
  };
  const verify = async () => {
    const res = await post('/mfa/verify', { code });
    if (res.ok) onEnabled();
    else if (res.retryAfter > 0)
      setMessage(`Too many wrong codes: try again in ${Math.ceil(res.retryAfter / 60)} minute(s).`);
    else setMessage(res.body.message ?? 'The code was not accepted');
  };
  if (enabled) return <Text data-testid="mfa-state">MFA is enabled for your account.</Text>;
  return (
    <Box>
      <Text data-testid="mfa-state" mb="default">
        MFA is not enabled for your account: impersonation and deletions need it.
      </Text>
      {!enrollment && (
        <Button data-testid="mfa-enrol" variant="contained" onClick={start}>
          Enrol in MFA
        </Button>
      )}
      {enrollment && (
        <Box>
          <Label>Add this to your authenticator app</Label>
          <Input data-testid="mfa-uri" readOnly value={enrollment.otpauthUri} width="100%" />
          <Label mt="default">Secret</Label>
          <Input data-testid="mfa-secret" readOnly value={enrollment.secret} width="100%" />
          <Label mt="default" htmlFor="mfa-code">
            Code from the app
          </Label>
          <Input
            id="mfa-code"
            data-testid="mfa-code"
            value={code}
            onChange={(e: React.ChangeEvent<HTMLInputElement>) => setCode(e.target.value)}
          />
          <Button data-testid="mfa-verify" ml="default" variant="contained" onClick={verify}>
            Verify and enable
          </Button>
        </Box>
      )}
      {message && (
        <Text data-testid="mfa-message" color="error">
          {message}
        </Text>
      )}
    </Box>
  );
};

const Dashboard: React.FC = () => {
  const rootPath = useSelector((state: { paths: { rootPath: string } }) => state.paths.rootPath);
  const [figures, setFigures] = useState<Figures | null>(null);
  const load = useCallback(() => {
    api.getDashboard().then((res) => setFigures(res.data as Figures));
  }, []);
  useEffect(load, [load]);
  if (!figures)
    return (
      <Box p="xl">
        <Text>Loading…</Text>
      </Box>
    );
  const resource = (id: string, query = '') => `${rootPath}/resources/${id}${query}`;
  return (
    <Box data-testid="dashboard" p="lg">
      <H2>Platform overview</H2>
      <Box flex flexWrap="wrap">
        <Card title="Users by status" testId="users-by-status">
          <Counts counts={figures.usersByStatus} labels={figures.labels.statuses} />
        </Card>
        <Card title="Users by role" testId="users-by-role">
          <Counts counts={figures.usersByRole} labels={figures.labels.roles} />
        </Card>
        <Card title="New users" testId="new-users">
          <Text>
            Last 7 days: <strong>{figures.newUsers.last7Days}</strong>
          </Text>
          <Text>
            Last 30 days: <strong>{figures.newUsers.last30Days}</strong>
          </Text>
        </Card>
        <Card title="Organizations by plan" testId="organizations-by-plan">
          <Counts counts={figures.organizationsByPlan} labels={figures.labels.plans} />
        </Card>
        <Card title="Needs attention" testId="attention">
          <Figure
            n={figures.openImpersonations}
            href={resource('impersonation_sessions')}
            label={['open impersonation session', 'open impersonation sessions']}
          />
          <Figure
            n={figures.failingJobs}
            href={resource('jobs', '?filters.state=failed')}
            label={['failing job', 'failing jobs']}
          />
          <Figure
            n={figures.failingWebhookDeliveries}
            href={resource('webhook_deliveries', '?filters.status=failed')}
            label={['failing webhook delivery', 'failing webhook deliveries']}
          />
          <Figure
            n={figures.unsentOutbox}
            href={resource('mail_outbox')}
            label={['outbox message not sent', 'outbox messages not sent']}
          />
        </Card>
        <Card title="Your MFA" testId="mfa">
          <MfaCard enabled={figures.mfa.enabled} rootPath={rootPath} onEnabled={load} />
        </Card>
      </Box>
      <Box variant="white" p="lg" m="default" data-testid="recent-audit">
        <H4>Recent audit events</H4>
        <table style={{ width: '100%' }}>
          <tbody>
            {figures.recentAudit.map((entry) => (
              <tr key={entry.id}>
                <td>{portalTime(entry.occurredAt)}</td>
                <td>
                  <Link href={`${rootPath}/resources/audit_log/records/${entry.id}/show`}>
                    {codeLabel(entry.action)}
                  </Link>
                </td>
                <td>
                  {entry.actorId && entry.actorName && RESOURCE_OF_KIND[entry.actorType] ? (
                    <Link
                      href={`${rootPath}/resources/${RESOURCE_OF_KIND[entry.actorType]}/records/${entry.actorId}/show`}
                    >
                      {entry.actorName}
                    </Link>
                  ) : (
                    (entry.actorName ?? entry.actorId ?? 'system')
                  )}
                </td>
                <td>{entry.targetType}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Box>
    </Box>
  );
};

export default Dashboard;
