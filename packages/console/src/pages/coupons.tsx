import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Outputs } from "../api.js";
import { type Column, DataTable } from "../components/data-table.js";
import { Day } from "../components/day.js";
import { Pager, useCursorPages } from "../components/paging.js";
import { Empty, ProblemNotice, QueryStatus } from "../components/status.js";
import { WriteButton } from "../components/write-button.js";
import { formatMoney, formatQuantity } from "../format.js";
import { useSession } from "../session-context.js";
import { NewCouponForm } from "./coupon-form.js";

const PAGE_SIZE = 20;

type Coupon = Outputs["coupons"]["list"]["coupons"][number];
type Discount = Coupon["discount"];
type Duration = Coupon["duration"];

/** A coupon's discount in words: `20 % off`, `$15.00 off`. */
export function discountText(discount: Discount, currency: string | undefined): string {
  if (discount.type === "PERCENT") return `${formatQuantity(discount.value)} % off`;
  return `${currency ? formatMoney(discount.value, currency) : discount.value} off`;
}

/** How long a redemption applies, in words. */
export function durationText(duration: Duration): string {
  if (duration === "ONCE") return "once";
  if (duration === "FOREVER") return "for ever";
  return `${duration.cycles} cycle${duration.cycles === 1 ? "" : "s"}`;
}

function ArchiveButton({ coupon }: { coupon: Coupon }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const archive = useMutation({
    mutationFn: () => api.coupons.archive.mutate({ code: coupon.code }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["coupons"] }),
  });
  if (coupon.archivedAt) return <span className="muted">archived</span>;
  return (
    <>
      <WriteButton onClick={() => archive.mutate()} disabled={archive.isPending} aria-label={`Archive ${coupon.code}`}>
        Archive
      </WriteButton>
      {archive.error && <ProblemNotice error={archive.error} />}
    </>
  );
}

const COUPON_COLUMNS: Column<Coupon>[] = [
  { name: "Code", cell: (coupon) => <code>{coupon.code}</code> },
  { name: "Discount", cell: (coupon) => discountText(coupon.discount, coupon.currency) },
  { name: "Applies", cell: (coupon) => durationText(coupon.duration) },
  { name: "Redemptions at most", numeric: true, cell: (coupon) => coupon.maxRedemptions ?? "—" },
  { name: "Redeem by", cell: (coupon) => (coupon.redeemBy ? <Day iso={coupon.redeemBy} /> : "—") },
  { name: "Created", cell: (coupon) => <Day iso={coupon.createdAt} /> },
  { name: "Status", cell: (coupon) => <ArchiveButton coupon={coupon} /> },
];

/** The account's coupons as the API lists them, with a form for a new one and each one's archive. */
export function CouponsPage() {
  const { api } = useSession();
  const pages = useCursorPages();
  const coupons = useQuery({
    queryKey: ["coupons", "list", pages.cursor],
    queryFn: () => api.coupons.list.query({ limit: PAGE_SIZE, cursor: pages.cursor }),
  });
  return (
    <section>
      <h1>Coupons</h1>
      <NewCouponForm />
      <QueryStatus query={coupons} what="coupons" />
      {coupons.data &&
        (coupons.data.coupons.length === 0 ? (
          <Empty>No coupons yet: create one above, or through the API.</Empty>
        ) : (
          <>
            <DataTable
              rows={coupons.data.coupons}
              columns={COUPON_COLUMNS}
              rowKey={(coupon) => coupon.id}
              caption="Coupons a contract can be given (Apply a coupon, on the customer's contracts)"
            />
            <Pager label="Coupons" pages={pages} nextCursor={coupons.data.nextCursor} total={coupons.data.total} />
          </>
        ))}
    </section>
  );
}
