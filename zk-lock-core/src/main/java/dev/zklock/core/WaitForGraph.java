package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

import dev.zklock.LockDeadlock;
import dev.zklock.LockDeadlock.LockRef;
import dev.zklock.annotation.LockMode;

/**
 * The wait-for graph of one snapshot of published waits: the {@link WaitRecord}s
 * of every instance, with the creation zxid of each record node, and the listing
 * of the queues they wait in. Pure: no ZooKeeper, no clock, the same answer from
 * the same snapshot on every instance. In order:
 * <ol>
 * <li><b>Blockers</b>: the nodes ahead of a record's node that keep it waiting, by
 * the rule of its mode: every node ahead for MUTEX and WRITE, every WRITE node
 * ahead for READ, the first {@code permits} leases for SEMAPHORE. A local waiter
 * waits behind its tenure's node: behind the nodes ahead of it while the tenure
 * is queued, behind the tenure's holders once it holds. A READ waiter behind a
 * waiting WRITE node waits, through it, for the READ holders ahead of it too: a
 * writer that holds nothing publishes no record, so its node alone would count
 * as free and hide a cycle through those holders.</li>
 * <li><b>Edges</b>: a blocker node maps to the records that hold it or wait with
 * it, across names, keys and processes; one edge per pair of records. A node that
 * maps to no record is free: its owner may still leave.</li>
 * <li><b>Stuck set</b>: by graph reduction, a record is free once every blocker of
 * an AND-wait (MUTEX, READ, WRITE) or one permit holder of an OR-wait (SEMAPHORE)
 * is free; a node is free once every record it maps to is.</li>
 * <li><b>Cycles</b>: the strongly connected components of the stuck records
 * (Tarjan); one of two or more records is a deadlock, a lone stuck record a
 * bystander.</li>
 * <li><b>Victim and report</b>: the member whose record is newest (highest zxid);
 * the report is the shortest cycle through it, and for a SEMAPHORE waiter on it
 * the edges to every permit holder.</li>
 * </ol>
 */
final class WaitForGraph {

	// by zxid: vertex i is waits.get(i), so ascending vertex order is zxid order
	private final List<Wait> waits;

	// per vertex, per blocker node, the vertices that node maps to
	private final List<List<List<Integer>>> blockers = new ArrayList<>();

	// per vertex, one edge per holder vertex, in vertex order
	private final List<TreeMap<Integer, Edge>> out = new ArrayList<>();

	// per vertex, the waiting WRITE node a READ waiter waits through, or null
	private final List<@Nullable String> through = new ArrayList<>();

	private final boolean[] stuck;

	// per vertex, its strongly connected component among the stuck ones, or -1
	private final int[] component;

	private final List<List<Integer>> components = new ArrayList<>();

	/**
	 * One published wait of the snapshot.
	 *
	 * @param path the record node's path
	 * @param zxid the record node's creation zxid
	 * @param record what it says
	 */
	record Wait(String path, long zxid, WaitRecord record) {

	}

	/**
	 * One edge: a waiter and a record that keeps it waiting.
	 *
	 * @param waiter the waiting record
	 * @param holder the record holding, or waiting with, a node ahead of it
	 * @param waitsFor the lock the waiter waits for
	 * @param holds the holder's lock at the first such node
	 * @param node that node's path
	 * @param holding whether the holder holds that node, rather than waits with it
	 */
	record Edge(Wait waiter, Wait holder, LockRef waitsFor, LockRef holds, String node, boolean holding) {

	}

	/**
	 * A deadlock: a strongly connected component of two or more stuck records.
	 *
	 * @param members the records, by zxid
	 * @param victim the newest of them
	 */
	record Cycle(List<Wait> members, Wait victim) {

	}

	private WaitForGraph(List<Wait> waits, Map<String, List<String>> queues) {
		this.waits = waits;
		Map<String, List<Integer>> holding = new HashMap<>();
		Map<String, List<Integer>> waiting = new HashMap<>();
		for (int v = 0; v < waits.size(); v++) {
			WaitRecord record = waits.get(v).record();
			for (WaitRecord.Held held : record.holds()) {
				holding.computeIfAbsent(held.path(), (node) -> new ArrayList<>()).add(v);
			}
			waiting.computeIfAbsent(record.nodePath(), (node) -> new ArrayList<>()).add(v);
		}
		for (int v = 0; v < waits.size(); v++) {
			link(v, queues, holding, waiting);
		}
		this.stuck = reduce();
		this.component = new int[waits.size()];
		Arrays.fill(this.component, -1);
		new Components().find();
	}

	/**
	 * Build the graph of a snapshot.
	 * @param waits the published waits read, in any order
	 * @param queues the children of each lock path read, by lock path; a record whose
	 * queue is missing, or whose node is not in it, counts as free
	 * @return the graph
	 */
	static WaitForGraph of(Collection<Wait> waits, Map<String, List<String>> queues) {
		List<Wait> sorted = new ArrayList<>(waits);
		sorted.sort(Comparator.comparingLong(Wait::zxid).thenComparing(Wait::path));
		return new WaitForGraph(List.copyOf(sorted), queues);
	}

	// The blocker nodes of one record, each mapped to its records, and the edges they make
	private void link(int v, Map<String, List<String>> queues, Map<String, List<Integer>> holding,
			Map<String, List<Integer>> waiting) {
		WaitRecord record = this.waits.get(v).record();
		List<String> children = queues.get(record.queue());
		List<String> nodes = (children != null) ? blockerNodes(record, children) : null;
		List<List<Integer>> groups = new ArrayList<>();
		TreeMap<Integer, Edge> edges = new TreeMap<>();
		this.blockers.add(groups);
		this.out.add(edges);
		this.through.add((children != null) ? writerWaitedThrough(record, children) : null);
		if (nodes == null) {
			return;
		}
		// a tenure that holds: its local waiters wait for its holders only, not for each other
		boolean behindTenure = record.local() && nodes.isEmpty();
		if (behindTenure) {
			nodes = List.of(record.nodePath());
		}
		for (String node : nodes) {
			List<Integer> group = new ArrayList<>();
			for (int s : holding.getOrDefault(node, List.of())) {
				addEdge(v, s, node, heldAt(this.waits.get(s).record(), node), true, group, edges);
			}
			if (!behindTenure) {
				for (int s : waiting.getOrDefault(node, List.of())) {
					addEdge(v, s, node, this.waits.get(s).record().waitsFor(), false, group, edges);
				}
			}
			groups.add(group);
		}
	}

	private void addEdge(int v, int s, String node, LockRef holds, boolean holding, List<Integer> group,
			Map<Integer, Edge> edges) {
		if (s == v || group.contains(s)) {
			return;
		}
		group.add(s);
		edges.putIfAbsent(s, new Edge(this.waits.get(v), this.waits.get(s), this.waits.get(v).record().waitsFor(),
				holds, node, holding));
	}

	private static LockRef heldAt(WaitRecord record, String node) {
		for (WaitRecord.Held held : record.holds()) {
			if (held.path().equals(node)) {
				return held.lock();
			}
		}
		return record.waitsFor();
	}

	/**
	 * The full paths of the nodes that keep a record waiting, by its mode's rule
	 * (for a local waiter, those ahead of its tenure's node): none when its node
	 * holds, {@code null} when it is not listed.
	 */
	private static @Nullable List<String> blockerNodes(WaitRecord record, List<String> children) {
		LockMode mode = record.waitsFor().mode();
		QueueRule rule = QueueRule.valueOf(mode.name());
		List<String> queue = rule.sort(children);
		int index = queue.indexOf(record.node());
		if (index < 0) {
			return null;
		}
		List<String> ahead = switch (mode) {
			case READ -> readBlockers(queue.subList(0, index));
			case SEMAPHORE -> (index < record.permits()) ? List.of() : queue.subList(0, record.permits());
			default -> queue.subList(0, index);
		};
		return ahead.stream().map((node) -> record.queue() + "/" + node).toList();
	}

	// The WRITE nodes ahead, and the READ holders ahead of the first of them when it waits
	private static List<String> readBlockers(List<String> ahead) {
		int first = firstWrite(ahead);
		if (first < 0) {
			return List.of();
		}
		List<String> blockers = new ArrayList<>(ahead.subList(0, first));
		ahead.subList(first, ahead.size())
			.stream()
			.filter((node) -> node.contains(LockNodeNames.WRITE))
			.forEach(blockers::add);
		return blockers;
	}

	private static int firstWrite(List<String> queue) {
		for (int i = 0; i < queue.size(); i++) {
			if (queue.get(i).contains(LockNodeNames.WRITE)) {
				return i;
			}
		}
		return -1;
	}

	// The waiting WRITE node between a READ waiter and the READ holders it waits for through it
	private static @Nullable String writerWaitedThrough(WaitRecord record, List<String> children) {
		if (record.waitsFor().mode() != LockMode.READ) {
			return null;
		}
		List<String> queue = QueueRule.READ.sort(children);
		int index = queue.indexOf(record.node());
		int first = (index < 0) ? -1 : firstWrite(queue.subList(0, index));
		return (first > 0) ? record.queue() + "/" + queue.get(first) : null;
	}

	// Graph reduction to a fixpoint: what is left stuck can never be granted while the snapshot stands
	private boolean[] reduce() {
		boolean[] result = new boolean[this.waits.size()];
		Arrays.fill(result, true);
		boolean changed = true;
		while (changed) {
			changed = false;
			for (int v = 0; v < result.length; v++) {
				if (result[v] && isFree(v, result)) {
					result[v] = false;
					changed = true;
				}
			}
		}
		return result;
	}

	private boolean isFree(int v, boolean[] stuckNow) {
		List<List<Integer>> groups = this.blockers.get(v);
		if (groups.isEmpty()) {
			return true;
		}
		boolean orWait = this.waits.get(v).record().waitsFor().mode() == LockMode.SEMAPHORE;
		for (List<Integer> group : groups) {
			boolean nodeFree = group.stream().noneMatch((s) -> stuckNow[s]);
			if (orWait && nodeFree) {
				return true;
			}
			if (!orWait && !nodeFree) {
				return false;
			}
		}
		return !orWait;
	}

	/**
	 * The published waits, by zxid.
	 */
	List<Wait> waits() {
		return this.waits;
	}

	/**
	 * Every edge, by waiter, then holder, in zxid order.
	 */
	List<Edge> edges() {
		List<Edge> all = new ArrayList<>();
		this.out.forEach((edges) -> all.addAll(edges.values()));
		return all;
	}

	/**
	 * What a verdict re-checks in its transaction: every member's record and waiting
	 * node, every node of an edge between members, and the waiting WRITE node a READ
	 * member waits through. All of them still there means the cycle still stands:
	 * records are immutable, and two nodes of one queue keep their order.
	 * @param cycle a cycle of this graph
	 * @return the paths, each once
	 */
	List<String> checks(Cycle cycle) {
		Set<String> paths = new LinkedHashSet<>();
		Set<Wait> members = Set.copyOf(cycle.members());
		for (Wait member : cycle.members()) {
			paths.add(member.path());
			paths.add(member.record().nodePath());
			String writer = this.through.get(vertex(member.path()));
			if (writer != null) {
				paths.add(writer);
			}
		}
		for (Edge edge : edges()) {
			if (members.contains(edge.waiter()) && members.contains(edge.holder())) {
				paths.add(edge.node());
			}
		}
		return List.copyOf(paths);
	}

	/**
	 * Whether the wait of a record node can never be granted while the snapshot
	 * stands.
	 */
	boolean isStuck(String path) {
		int v = vertex(path);
		return v >= 0 && this.stuck[v];
	}

	/**
	 * Every deadlock of the snapshot.
	 */
	List<Cycle> cycles() {
		List<Cycle> cycles = new ArrayList<>();
		for (List<Integer> members : this.components) {
			if (members.size() > 1) {
				cycles.add(cycle(members));
			}
		}
		return cycles;
	}

	/**
	 * The deadlock a published wait is part of.
	 * @param path its record node's path
	 * @return the cycle, or empty when it is free, a bystander, or not in the snapshot
	 */
	Optional<Cycle> cycleOf(String path) {
		int v = vertex(path);
		if (v < 0 || this.component[v] < 0 || this.components.get(this.component[v]).size() < 2) {
			return Optional.empty();
		}
		return Optional.of(cycle(this.components.get(this.component[v])));
	}

	private Cycle cycle(List<Integer> members) {
		List<Wait> sorted = members.stream().sorted().map(this.waits::get).toList();
		return new Cycle(sorted, sorted.get(sorted.size() - 1));
	}

	/**
	 * The report of a deadlock: the shortest cycle through its victim (breadth first,
	 * neighbours in zxid order), then, for a SEMAPHORE waiter on it, the edges to
	 * its other permit holders.
	 * @param cycle a cycle of this graph
	 * @param detectedAt when it was found
	 * @return the report, starting with the victim's edge
	 */
	LockDeadlock report(Cycle cycle, Instant detectedAt) {
		int victim = vertex(cycle.victim().path());
		List<Integer> ring = shortestRing(victim);
		List<Edge> edges = new ArrayList<>();
		for (int i = 0; i < ring.size(); i++) {
			int waiter = ring.get(i);
			edges.add(Objects.requireNonNull(this.out.get(waiter).get(ring.get((i + 1) % ring.size()))));
		}
		for (int waiter : ring) {
			if (this.waits.get(waiter).record().waitsFor().mode() == LockMode.SEMAPHORE) {
				this.out.get(waiter).values().stream().filter((edge) -> !edges.contains(edge)).forEach(edges::add);
			}
		}
		return new LockDeadlock(detectedAt, cycle.victim().record().party(),
				edges.stream().map(WaitForGraph::toReport).toList());
	}

	// The vertices of the shortest cycle from the victim back to it, the victim first
	private List<Integer> shortestRing(int victim) {
		int[] parent = new int[this.waits.size()];
		Arrays.fill(parent, -1);
		ArrayDeque<Integer> queue = new ArrayDeque<>(List.of(victim));
		int last = -1;
		while (!queue.isEmpty() && last < 0) {
			int v = queue.remove();
			for (int s : this.out.get(v).keySet()) {
				if (this.component[s] != this.component[victim]) {
					continue;
				}
				if (s == victim) {
					last = v;
					break;
				}
				if (parent[s] < 0) {
					parent[s] = v;
					queue.add(s);
				}
			}
		}
		List<Integer> ring = new ArrayList<>();
		for (int v = last; v != victim && v >= 0; v = parent[v]) {
			ring.add(0, v);
		}
		ring.add(0, victim);
		return ring;
	}

	private static LockDeadlock.Edge toReport(Edge edge) {
		return new LockDeadlock.Edge(edge.waiter().record().party(), edge.waitsFor(), edge.holder().record().party(),
				edge.holds(), !edge.holding());
	}

	private int vertex(String path) {
		for (int v = 0; v < this.waits.size(); v++) {
			if (this.waits.get(v).path().equals(path)) {
				return v;
			}
		}
		return -1;
	}

	/**
	 * Tarjan's strongly connected components over the stuck vertices and the edges
	 * between them.
	 */
	private final class Components {

		private final int[] index = new int[WaitForGraph.this.waits.size()];

		private final int[] lowlink = new int[this.index.length];

		private final boolean[] onStack = new boolean[this.index.length];

		private final ArrayDeque<Integer> stack = new ArrayDeque<>();

		private int counter;

		void find() {
			Arrays.fill(this.index, -1);
			for (int v = 0; v < this.index.length; v++) {
				if (WaitForGraph.this.stuck[v] && this.index[v] < 0) {
					connect(v);
				}
			}
		}

		private void connect(int v) {
			this.index[v] = this.counter;
			this.lowlink[v] = this.counter;
			this.counter++;
			this.stack.push(v);
			this.onStack[v] = true;
			for (int s : WaitForGraph.this.out.get(v).keySet()) {
				if (!WaitForGraph.this.stuck[s]) {
					continue;
				}
				if (this.index[s] < 0) {
					connect(s);
					this.lowlink[v] = Math.min(this.lowlink[v], this.lowlink[s]);
				}
				else if (this.onStack[s]) {
					this.lowlink[v] = Math.min(this.lowlink[v], this.index[s]);
				}
			}
			if (this.lowlink[v] == this.index[v]) {
				List<Integer> members = new ArrayList<>();
				int s;
				do {
					s = this.stack.pop();
					this.onStack[s] = false;
					WaitForGraph.this.component[s] = WaitForGraph.this.components.size();
					members.add(s);
				}
				while (s != v);
				WaitForGraph.this.components.add(members);
			}
		}

	}

}
