package dev.zklock.core;

import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.zklock.LockDeadlock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The wait-for graph on hand-built snapshots: edges per mode, the stuck set by
 * graph reduction (AND-waits, SEMAPHORE's OR-wait), cycles against chains and
 * bystanders, and a victim and report that every member computes alike.
 */
class WaitForGraphTests {

	private static final Instant NOW = Instant.parse("2026-12-02T14:03:12Z");

	private final WaitSnapshot snapshot = new WaitSnapshot();

	@Test
	void twoThreadsNestingTwoMutexesInOppositeOrdersAreACycle() {
		WaitForGraph.Wait a = this.snapshot.nested("a", "orders/1", "stock/7");
		WaitForGraph.Wait b = this.snapshot.nested("b", "stock/7", "orders/1");
		WaitForGraph graph = this.snapshot.graph();
		assertThat(edges(graph)).containsExactly("a->b stock/7 MUTEX holds MUTEX", "b->a orders/1 MUTEX holds MUTEX");
		assertThat(graph.cycles()).hasSize(1);
		WaitForGraph.Cycle cycle = graph.cycleOf(a.path()).orElseThrow();
		assertThat(cycle.members()).containsExactly(a, b);
		assertThat(cycle.victim()).as("the newest record").isEqualTo(b);
		assertThat(graph.cycleOf(b.path())).contains(cycle);
	}

	@Test
	void aWriterWaitsForEveryReadHolderAhead() {
		String r1 = this.snapshot.node("stock/7", "__READ__0000000001");
		String r2 = this.snapshot.node("stock/7", "__READ__0000000002");
		this.snapshot.wait("w", this.snapshot.node("stock/7", "__WRIT__0000000003"));
		this.snapshot.wait("r", this.snapshot.node("orders/1", "lock-0000000002"), r1);
		this.snapshot.wait("s", this.snapshot.node("orders/2", "lock-0000000002"), r2);
		assertThat(edges(this.snapshot.graph())).containsExactly("w->r stock/7 WRITE holds READ",
				"w->s stock/7 WRITE holds READ");
	}

	@Test
	void aReaderWaitsForTheWritersAheadAndThroughAWaitingOneForTheReadHoldersAheadOfIt() {
		String r1 = this.snapshot.node("stock/7", "__READ__0000000001");
		this.snapshot.wait("holder", this.snapshot.node("orders/1", "lock-0000000002"), r1);
		this.snapshot.wait("writer", this.snapshot.node("stock/7", "__WRIT__0000000002"));
		this.snapshot.wait("reader", this.snapshot.node("stock/7", "__READ__0000000003"));
		WaitForGraph graph = this.snapshot.graph();
		assertThat(edges(graph)).containsExactly("writer->holder stock/7 WRITE holds READ",
				"reader->holder stock/7 READ holds READ", "reader->writer stock/7 READ holds WRITE");
		// the writer only waits ahead of the reader: the report says so rather than "holds"
		assertThat(graph.edges()).extracting(WaitForGraph.Edge::holding).containsExactly(true, true, false);
	}

	@Test
	void aReaderBehindAWriterThatPublishedNothingIsInTheCycleThroughIt() {
		// the writer holds nothing, so it published no record: only its node is in the queue
		String[] stock = { this.snapshot.node("stock/7", "__READ__0000000001"),
				this.snapshot.node("stock/7", "__WRIT__0000000002"),
				this.snapshot.node("stock/7", "__READ__0000000003") };
		String[] orders = { this.snapshot.node("orders/1", "lock-0000000001"),
				this.snapshot.node("orders/1", "lock-0000000002") };
		WaitForGraph.Wait holder = this.snapshot.wait("holder", orders[1], stock[0]);
		WaitForGraph.Wait reader = this.snapshot.wait("reader", stock[2], orders[0]);
		WaitForGraph graph = this.snapshot.graph();
		WaitForGraph.Cycle cycle = graph.cycleOf(reader.path()).orElseThrow();
		assertThat(cycle.members()).containsExactly(holder, reader);
		// the writer's node in the verdict: were it gone, the reader would be granted
		assertThat(graph.checks(cycle)).contains(stock[1], stock[0]);
	}

	@Test
	void aReaderBehindAHoldingWriterWaitsForItAlone() {
		String w1 = this.snapshot.node("stock/7", "__WRIT__0000000001");
		this.snapshot.wait("holder", this.snapshot.node("orders/1", "lock-0000000002"), w1);
		this.snapshot.wait("reader", this.snapshot.node("stock/7", "__READ__0000000002"));
		assertThat(edges(this.snapshot.graph())).containsExactly("reader->holder stock/7 READ holds WRITE");
	}

	@Test
	void aReadInsideWriteIsOneHolder() {
		String write = this.snapshot.node("stock/7", "__WRIT__0000000001");
		String read = this.snapshot.node("stock/7", "__READ__0000000001");
		this.snapshot.wait("holder", this.snapshot.node("orders/1", "lock-0000000002"), write, read);
		this.snapshot.wait("writer", this.snapshot.node("stock/7", "__WRIT__0000000002"));
		assertThat(edges(this.snapshot.graph())).containsExactly("writer->holder stock/7 WRITE holds WRITE");
	}

	@Test
	void aSemaphoreWaiterWaitsForThePermitHoldersOnly() {
		String p1 = this.snapshot.node("pool/x", "lease-2-0000000001");
		String p2 = this.snapshot.node("pool/x", "lease-2-0000000002");
		this.snapshot.wait("p1", this.snapshot.node("orders/1", "lock-0000000002"), p1);
		this.snapshot.wait("p2", this.snapshot.node("orders/2", "lock-0000000002"), p2);
		this.snapshot.wait("first", this.snapshot.node("pool/x", "lease-2-0000000003"), 2, false);
		this.snapshot.wait("second", this.snapshot.node("pool/x", "lease-2-0000000004"), 2, false);
		assertThat(edges(this.snapshot.graph())).containsExactly("first->p1 pool/x SEMAPHORE holds SEMAPHORE",
				"first->p2 pool/x SEMAPHORE holds SEMAPHORE", "second->p1 pool/x SEMAPHORE holds SEMAPHORE",
				"second->p2 pool/x SEMAPHORE holds SEMAPHORE");
	}

	@Test
	void aSemaphoreWaiterIsStuckOnlyWhenEveryPermitHolderIs() {
		String p1 = this.snapshot.node("pool/x", "lease-2-0000000001");
		String p2 = this.snapshot.node("pool/x", "lease-2-0000000002");
		String m = this.snapshot.node("orders/1", "lock-0000000001");
		this.snapshot.wait("p1", this.snapshot.node("orders/1", "lock-0000000002"), p1);
		WaitForGraph.Wait holder = this.snapshot.wait("m", this.snapshot.node("pool/x", "lease-2-0000000003"), 2,
				false, m);
		WaitForGraph onePermitFree = this.snapshot.graph();
		assertThat(onePermitFree.isStuck(holder.path())).isFalse();
		assertThat(onePermitFree.cycles()).isEmpty();

		this.snapshot.wait("p2", this.snapshot.node("orders/1", "lock-0000000003"), p2);
		WaitForGraph bothStuck = this.snapshot.graph();
		WaitForGraph.Cycle cycle = bothStuck.cycleOf(holder.path()).orElseThrow();
		assertThat(cycle.members()).extracting(this::thread).containsExactly("p1", "m", "p2");
		// the shortest cycle through the victim, then the semaphore waiter's edge to its other permit holder
		assertThat(pairs(bothStuck.report(cycle, NOW))).containsExactly("p2->m", "m->p2", "m->p1");
	}

	@Test
	void anAndWaitWithOneFreeBlockerStaysStuckBehindTheOther() {
		String a1 = this.snapshot.node("orders/1", "lock-0000000001");
		String a2 = this.snapshot.node("x/1", "lock-0000000001");
		String b1 = this.snapshot.node("stock/7", "lock-0000000001");
		this.snapshot.wait("a", this.snapshot.node("stock/7", "lock-0000000002"), a1, a2);
		this.snapshot.wait("b", this.snapshot.node("orders/1", "lock-0000000002"), b1);
		// behind a's node and the node of a waiter without record, which may leave
		this.snapshot.node("x/1", "lock-0000000002");
		WaitForGraph.Wait c = this.snapshot.wait("c", this.snapshot.node("x/1", "lock-0000000003"));
		WaitForGraph graph = this.snapshot.graph();
		assertThat(graph.isStuck(c.path())).isTrue();
		assertThat(graph.cycleOf(c.path())).as("a bystander").isEmpty();
		assertThat(graph.cycles()).singleElement()
			.satisfies((cycle) -> assertThat(cycle.members()).extracting(this::thread).containsExactly("a", "b"));
	}

	@Test
	void aWaitBehindANodeWithoutRecordIsFree() {
		this.snapshot.node("stock/7", "lock-0000000001");
		WaitForGraph.Wait a = this.snapshot.wait("a", this.snapshot.node("stock/7", "lock-0000000002"));
		WaitForGraph graph = this.snapshot.graph();
		assertThat(graph.edges()).isEmpty();
		assertThat(graph.isStuck(a.path())).isFalse();
	}

	@Test
	void aRecordWhoseNodeIsNotListedIsFree() {
		this.snapshot.nested("a", "orders/1", "stock/7");
		// granted or gone since: its node is no longer in the queue read
		WaitForGraph.Wait b = this.snapshot.wait("b", WaitSnapshot.BASE + "/orders/1/lock-0000000002",
				WaitSnapshot.BASE + "/stock/7/lock-0000000001");
		WaitForGraph graph = this.snapshot.graph();
		assertThat(graph.isStuck(b.path())).isFalse();
		assertThat(graph.cycles()).isEmpty();
	}

	@Test
	void aChainWithoutCycleIsFree() {
		this.snapshot.node("d/1", "lock-0000000001");
		WaitForGraph.Wait a = this.snapshot.wait("a", this.snapshot.node("b/1", "lock-0000000002"));
		this.snapshot.nested("b", "b/1", "c/1");
		this.snapshot.nested("c", "c/1", "d/1");
		WaitForGraph graph = this.snapshot.graph();
		assertThat(graph.edges()).hasSize(2);
		assertThat(graph.isStuck(a.path())).isFalse();
		assertThat(graph.cycles()).isEmpty();
	}

	@Test
	void threeInstancesAcrossThreeNamesAreOneCycle() {
		this.snapshot.nested("x", "a/1", "b/1");
		this.snapshot.nested("y", "b/1", "c/1");
		WaitForGraph.Wait z = this.snapshot.nested("z", "c/1", "a/1");
		WaitForGraph graph = this.snapshot.graph();
		WaitForGraph.Cycle cycle = graph.cycleOf(z.path()).orElseThrow();
		assertThat(cycle.members()).extracting(this::thread).containsExactly("x", "y", "z");
		LockDeadlock report = graph.report(cycle, NOW);
		assertThat(report.victim()).isEqualTo(WaitSnapshot.party("z"));
		assertThat(pairs(report)).containsExactly("z->x", "x->y", "y->z");
	}

	@Test
	void overlappingCyclesAreOneComponentAndTheReportIsTheShortestCycleThroughTheVictim() {
		String x1 = this.snapshot.node("stock/7", "__READ__0000000001");
		String z1 = this.snapshot.node("stock/7", "__READ__0000000002");
		String y1 = this.snapshot.node("orders/1", "lock-0000000001");
		String y2 = this.snapshot.node("pool/1", "lock-0000000001");
		// y waits for both readers, each of which waits for y: two cycles through y
		this.snapshot.wait("x", this.snapshot.node("orders/1", "lock-0000000002"), x1);
		this.snapshot.wait("z", this.snapshot.node("pool/1", "lock-0000000002"), z1);
		WaitForGraph.Wait y = this.snapshot.wait("y", this.snapshot.node("stock/7", "__WRIT__0000000003"), y1, y2);
		WaitForGraph graph = this.snapshot.graph();
		assertThat(graph.cycles()).singleElement()
			.satisfies((cycle) -> assertThat(cycle.members()).extracting(this::thread).containsExactly("x", "z", "y"));
		WaitForGraph.Cycle cycle = graph.cycleOf(y.path()).orElseThrow();
		assertThat(cycle.victim()).isEqualTo(y);
		assertThat(pairs(graph.report(cycle, NOW))).containsExactly("y->x", "x->y");
	}

	@Test
	void everyMemberFindsTheSameVictimAndReportWhateverTheOrderRead() {
		List<WaitForGraph.Wait> members = List.of(this.snapshot.nested("a", "orders/1", "stock/7"),
				this.snapshot.nested("b", "stock/7", "pool/1"), this.snapshot.nested("c", "pool/1", "orders/1"));
		WaitForGraph forwards = this.snapshot.graph();
		WaitForGraph backwards = this.snapshot.graphReadBackwards();
		LockDeadlock expected = forwards.report(forwards.cycleOf(members.get(0).path()).orElseThrow(), NOW);
		for (WaitForGraph.Wait member : members) {
			for (WaitForGraph graph : List.of(forwards, backwards)) {
				WaitForGraph.Cycle cycle = graph.cycleOf(member.path()).orElseThrow();
				assertThat(cycle.victim()).isEqualTo(members.get(2));
				assertThat(graph.report(cycle, NOW)).isEqualTo(expected);
			}
		}
	}

	@Test
	void localWaitersWaitForTheTenuresHoldersAndNotForEachOther() {
		String tenure = this.snapshot.node("hot/k", "lock-0000000001");
		String x1 = this.snapshot.node("orders/1", "lock-0000000001");
		WaitForGraph.Wait holder = this.snapshot.wait("holder", this.snapshot.node("orders/1", "lock-0000000002"),
				tenure);
		WaitForGraph.Wait first = this.snapshot.wait("first", tenure, 1, true);
		WaitForGraph.Wait second = this.snapshot.wait("second", tenure, 1, true);
		WaitForGraph.Wait other = this.snapshot.wait("other", this.snapshot.node("hot/k", "lock-0000000002"), x1);
		WaitForGraph graph = this.snapshot.graph();
		assertThat(edges(graph)).contains("first->holder hot/k MUTEX holds MUTEX",
				"second->holder hot/k MUTEX holds MUTEX", "other->holder hot/k MUTEX holds MUTEX",
				"other->first hot/k MUTEX holds MUTEX")
			.noneMatch((edge) -> edge.startsWith("first->second") || edge.startsWith("second->first"));
		// the tenure passes to the local waiters before another process gets the key: they are on the cycle too
		WaitForGraph.Cycle cycle = graph.cycleOf(first.path()).orElseThrow();
		assertThat(cycle.members()).containsExactly(holder, first, second, other);
		assertThat(cycle.victim()).isEqualTo(other);
		assertThat(pairs(graph.report(cycle, NOW))).containsExactly("other->holder", "holder->other");
	}

	@Test
	void localWaitersOfAQueuedTenureWaitForTheNodesAheadOfIt() {
		String ahead = this.snapshot.node("hot/k", "lock-0000000001");
		String tenure = this.snapshot.node("hot/k", "lock-0000000002");
		this.snapshot.wait("remote", this.snapshot.node("orders/1", "lock-0000000002"), ahead);
		this.snapshot.wait("first", tenure, 1, true);
		this.snapshot.wait("second", tenure, 1, true);
		assertThat(edges(this.snapshot.graph())).containsExactly("first->remote hot/k MUTEX holds MUTEX",
				"second->remote hot/k MUTEX holds MUTEX");
	}

	// "waiter->holder lock mode holds mode", in the graph's order
	private List<String> edges(WaitForGraph graph) {
		return graph.edges()
			.stream()
			.map((edge) -> thread(edge.waiter()) + "->" + thread(edge.holder()) + " " + edge.waitsFor().name() + "/"
					+ edge.waitsFor().key() + " " + edge.waitsFor().mode() + " holds " + edge.holds().mode())
			.toList();
	}

	// "waiter->holder" by thread, in the report's order
	private static List<String> pairs(LockDeadlock report) {
		return report.edges().stream().map((edge) -> edge.waiter().thread() + "->" + edge.holder().thread()).toList();
	}

	private String thread(WaitForGraph.Wait wait) {
		return wait.record().party().thread();
	}

}
