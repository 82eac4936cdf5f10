import { isCheckable, loadCatalogue, type Requirement } from './catalogue.ts';
import type { Target } from './config.ts';

/** Which fixtures and hooks a target config supplies, by the names the catalogue uses. */
export function suppliedBy(target: Target): Set<string> {
  const supplied = new Set<string>(['webhookReceiver', 'numberWithoutCampaign']);
  if (target.clients.secondary) supplied.add('secondClient');
  if (target.clients.special) supplied.add('specialCharsClient');
  if (target.webhooks.secret) supplied.add('webhookSecret');
  // An MMS-capable number is discovered at run time when not configured.
  supplied.add('mmsNumber');
  for (const hook of target.hooks.offers) supplied.add(hook);
  return supplied;
}

/**
 * What a run would do, for `certify --dry-run`: the target, the levels that apply, and the
 * requirements that will be reported not testable here (and why) before anything is sent.
 */
export function planOf(target: Target | undefined): string[] {
  const catalogue = loadCatalogue();
  if (!target) {
    return [
      'Target: the bundled reference server, started with a fresh database and every test hook.',
      'Levels: document, standard, profile (it declares the reference profile).',
      `Requirements: ${catalogue.requirements.length}, of which ${catalogue.requirements.filter(isCheckable).length} checkable from outside.`,
    ];
  }
  const supplied = suppliedBy(target);
  const missing = (r: Requirement) => (r.needs ?? []).filter((n) => !supplied.has(n));
  const lines = [
    `Target: ${target.label} (${target.baseUrl})`,
    `Levels: document, standard${target.profile === 'reference' ? ', profile' : ' (profile-level checks are not run: the target does not declare profile: reference)'}`,
    `Clients: primary${target.clients.secondary ? ', secondary' : ''}${target.clients.special ? ', special' : ''}`,
    `Test hooks offered: ${target.hooks.offers.length ? target.hooks.offers.join(', ') : 'none'}`,
    `Sends only to recipients matching ${target.recipients.allowPattern}, at most ${target.sendCap}.`,
  ];
  const untestable = catalogue.requirements.filter((r) => isCheckable(r) && missing(r).length > 0);
  lines.push(`Not testable here with this config (${untestable.length}):`);
  for (const r of untestable) lines.push(`  ${r.id.padEnd(11)} needs ${missing(r).join(', ')}`);
  return lines;
}
