package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reading half of one search round: a snapshot of every published wait and of
 * the queues they wait in, all in the background and pipelined.
 * <ol>
 * <li>{@code getChildren} of {@code <base-path>/#waits}: one request;</li>
 * <li>{@code getData} of each record: N requests, none when N is above
 * {@link #MAX_RECORDS} (the round is skipped, with a WARN at most once a
 * minute);</li>
 * <li>{@code getChildren} of each queue a record waits in, each once: Q &lt;= N
 * requests.</li>
 * </ol>
 * Callbacks only collect answers and send the next calls, as on Curator's event
 * thread they must; the graph is built by the caller, on its own thread. A record
 * or queue gone between the listing and its read is left out: a missing record is
 * a free waiter, a missing queue leaves its waiters free, so a stale snapshot can
 * hide a cycle, never make one up. A read has a deadline: answers after it are
 * dropped.
 */
final class CycleSearch {

	private static final Logger logger = LoggerFactory.getLogger(CycleSearch.class);

	/** The most records a round reads. */
	static final int MAX_RECORDS = 256;

	private static final long CAP_WARNING_NANOS = TimeUnit.MINUTES.toNanos(1);

	private final CuratorFramework client;

	private final AtomicLong lastCapWarning = new AtomicLong(System.nanoTime() - CAP_WARNING_NANOS);

	private final String waitsPath;

	/**
	 * @param client the client to read with
	 * @param waitsPath the records' parent, {@code <base-path>/#waits}
	 */
	CycleSearch(CuratorFramework client, String waitsPath) {
		this.client = client;
		this.waitsPath = waitsPath;
	}

	/**
	 * What one round read.
	 *
	 * @param waits the published waits, with their creation zxids
	 * @param queues the children of each queue they wait in, by lock path
	 */
	record Snapshot(List<WaitForGraph.Wait> waits, Map<String, List<String>> queues) {

	}

	/**
	 * Read one snapshot.
	 * @param timer times the deadline
	 * @param deadlineNanos how long the read may take
	 * @return completes with the snapshot (empty above the cap), exceptionally when a
	 * listing failed or the deadline passed
	 */
	CompletableFuture<Snapshot> read(EngineTimer timer, long deadlineNanos) {
		CompletableFuture<Snapshot> result = new CompletableFuture<>();
		ScheduledFuture<?> deadline = timer.schedule(() -> result.completeExceptionally(
				new TimeoutException("unanswered after " + deadlineNanos + " ns")), deadlineNanos, TimeUnit.NANOSECONDS);
		result.whenComplete((snapshot, ex) -> {
			if (deadline != null) {
				deadline.cancel(false);
			}
			if (ex != null) {
				logger.debug("Deadlock search round of {} ended without a snapshot: {}", this.waitsPath, ex.toString());
			}
		});
		send(result, () -> this.client.getChildren().inBackground((c, event) -> listed(event, result))
			.forPath(this.waitsPath));
		return result;
	}

	private void listed(CuratorEvent event, CompletableFuture<Snapshot> result) {
		if (event.getResultCode() == KeeperException.Code.NONODE.intValue()) {
			result.complete(new Snapshot(List.of(), Map.of()));
			return;
		}
		if (!Nodes.isOk(event)) {
			result.completeExceptionally(Nodes.error(event));
			return;
		}
		List<String> children = event.getChildren();
		if (children.size() > MAX_RECORDS) {
			warnCapped(children.size());
			result.complete(new Snapshot(List.of(), Map.of()));
			return;
		}
		if (children.isEmpty()) {
			result.complete(new Snapshot(List.of(), Map.of()));
			return;
		}
		Map<String, WaitForGraph.Wait> waits = new ConcurrentHashMap<>();
		AtomicInteger remaining = new AtomicInteger(children.size());
		for (String child : children) {
			String path = this.waitsPath + "/" + child;
			send(result, () -> this.client.getData().inBackground((c, read) -> {
				recordRead(path, read, waits);
				if (remaining.decrementAndGet() == 0) {
					readQueues(new ArrayList<>(waits.values()), result);
				}
			}).forPath(path));
		}
	}

	private static void recordRead(String path, CuratorEvent event, Map<String, WaitForGraph.Wait> waits) {
		if (!Nodes.isOk(event) || event.getData() == null || event.getStat() == null) {
			// deleted meanwhile: that wait ended
			return;
		}
		try {
			waits.put(path, new WaitForGraph.Wait(path, event.getStat().getCzxid(), WaitRecord.decode(event.getData())));
		}
		catch (IllegalArgumentException ex) {
			// another version, or not a record: a waiter this engine cannot follow counts as free
			logger.debug("Wait record {} left out: {}", path, ex.getMessage());
		}
	}

	private void readQueues(List<WaitForGraph.Wait> waits, CompletableFuture<Snapshot> result) {
		Set<String> paths = new LinkedHashSet<>();
		waits.forEach((wait) -> paths.add(wait.record().queue()));
		Map<String, List<String>> queues = new ConcurrentHashMap<>();
		AtomicInteger remaining = new AtomicInteger(paths.size());
		for (String queue : paths) {
			send(result, () -> this.client.getChildren().inBackground((c, event) -> {
				if (Nodes.isOk(event)) {
					queues.put(queue, List.copyOf(event.getChildren()));
				}
				if (remaining.decrementAndGet() == 0) {
					result.complete(new Snapshot(List.copyOf(waits), Map.copyOf(queues)));
				}
			}).forPath(queue));
		}
	}

	private void warnCapped(int records) {
		long last = this.lastCapWarning.get();
		long now = System.nanoTime();
		if (now - last >= CAP_WARNING_NANOS && this.lastCapWarning.compareAndSet(last, now)) {
			logger.warn("{} waits are published under {}, more than the {} a deadlock search reads: no deadlock is "
					+ "looked for until fewer locks are waited for this long", records, this.waitsPath, MAX_RECORDS);
		}
	}

	private static void send(CompletableFuture<Snapshot> result, Call call) {
		try {
			call.send();
		}
		catch (Exception ex) {
			result.completeExceptionally(ex);
		}
	}

	@FunctionalInterface
	private interface Call {

		@Nullable Object send() throws Exception;

	}

}
