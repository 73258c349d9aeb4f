// The form's overtime controls (byo-yomi, Canadian) and the overtime part of a clock's text.

/// The API's clock for an overtime kind chosen in the form, or null for another kind.
export function overtimeFromForm(kind, ms) {
  const count = Math.round(Number(document.getElementById("clock-count").value));
  if (kind === "byoyomi") return { main_ms: ms("clock-main"), byoyomi_ms: ms("clock-period"), periods: count };
  if (kind === "canadian") return { main_ms: ms("clock-main"), period_ms: ms("clock-period"), stones: count };
  return null;
}

/// Shows the period and count fields for an overtime kind, with their labels.
export function showOvertimeFields(kind) {
  const over = kind === "byoyomi" || kind === "canadian";
  document.getElementById("clock-period-box").hidden = !over;
  document.getElementById("clock-count-box").hidden = !over;
  document.getElementById("clock-count-label").textContent = kind === "canadian" ? "Stones per period" : "Periods";
  document.getElementById("clock-period-label").textContent = kind === "canadian" ? "Period (s)" : "Period length (s)";
}

/// The form's kind for a control the server sent back, filling the overtime fields.
export function overtimeKind(c) {
  if (!c || (c.byoyomi_ms === undefined && c.period_ms === undefined)) return null;
  document.getElementById("clock-period").value = (c.byoyomi_ms ?? c.period_ms) / 1000;
  document.getElementById("clock-count").value = c.periods ?? c.stones;
  return c.byoyomi_ms !== undefined ? "byoyomi" : "canadian";
}

/// The time shown for `seat` and what follows it, given `main`, its main time left now
/// (zero or below: that far into overtime, whose period is shown): `{ ms, extra, spoken }`, or null without overtime.
export function overtimeShown(c, seat, main) {
  const period = c.period_ms && c.period_ms[seat];
  if (period === undefined) return null;
  const secs = (ms) => `${Math.round(ms / 1000)}s`;
  if (c.periods) {
    let periods = c.periods[seat];
    let ms = main;
    if (main <= 0) {
      const over = -main;
      const lost = over > period ? Math.floor(over / period) : 0;
      periods = Math.max(0, periods - lost);
      ms = period - (over % period);
      if (lost === 0) ms = period - over;
    }
    return { ms, extra: ` (${periods}×${secs(period)})`, spoken: `, then ${periods} period${periods === 1 ? "" : "s"} of ${secs(period)}` };
  }
  const stones = c.stones[seat];
  const inOvertime = c.overtime && c.overtime[seat];
  const ms = main <= 0 ? period + main : main;
  const extra = ` (${stones} stone${stones === 1 ? "" : "s"})`;
  const spoken = inOvertime || main <= 0 ? ` for ${stones} stone${stones === 1 ? "" : "s"}` : `, then ${stones} stones in ${secs(period)}`;
  return { ms, extra, spoken };
}
