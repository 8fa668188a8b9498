// Settings: each network as the gateway sees it now (the table it prints at start): its driver,
// live or test, custody, whether its node answers, confirmations, head height, and whether it is
// offered to payers and merchants, with the reason when not.
import { readinessApi } from '../contracts/dashboard/readiness.ts';
import { Card, Loading, Problem, TableScroll, useLoad } from './ui.tsx';
import { useStore } from './store.ts';

export function Networks() {
  const { api } = useStore();
  const rows = useLoad(() => api.get(readinessApi.networks), []);
  return (
    <Card title="Networks">
      {rows.error ? <Problem error={rows.error} /> : !rows.data ? <Loading /> : (
        <>
          {!rows.data.some((r) => r.offered) && (
            <p class="notice tone-warn" role="status">
              No network is offered: payers cannot pay and no payment, wallet or payout can be created.
            </p>
          )}
          <TableScroll label="Networks">
            <table>
              <thead>
                <tr>
                  <th scope="col">Network</th>
                  <th scope="col">Driver</th>
                  <th scope="col">Mode</th>
                  <th scope="col">Custody</th>
                  <th scope="col">Node</th>
                  <th scope="col">Confirmations</th>
                  <th scope="col">Head</th>
                  <th scope="col">Offered</th>
                </tr>
              </thead>
              <tbody>
                {rows.data.map((r) => (
                  <tr key={r.network}>
                    <th scope="row">{r.network}</th>
                    <td>{r.driver}</td>
                    <td>{r.mode}</td>
                    <td>{r.custody}</td>
                    <td>{r.node_reachable === null ? '—' : r.node_reachable ? 'answers' : 'no answer'}</td>
                    <td class="num">{r.confirmations}</td>
                    <td class="num">{r.head_height ?? '—'}</td>
                    <td>{r.offered ? 'yes' : `no: ${r.reason}`}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        </>
      )}
    </Card>
  );
}
