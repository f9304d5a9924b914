package dev.zklock;

import java.io.Serializable;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

import dev.zklock.annotation.LockMode;
import dev.zklock.core.LockPaths;

/**
 * A deadlock that zk-lock found among the waits of every instance and ended by
 * failing one of them, the victim, with a {@link LockDeadlockException}: each edge
 * says who waits for which lock and who holds what keeps it waiting, or waits
 * ahead of it in the same queue (a reader behind a waiting writer).
 *
 * @param detectedAt when the victim's instance found it
 * @param victim the wait that was failed, the newest of the cycle
 * @param edges the cycle, starting with the victim's wait
 */
public record LockDeadlock(Instant detectedAt, Party victim, List<Edge> edges) implements Serializable {

	/**
	 * Create a new instance.
	 * @param detectedAt when the victim's instance found it
	 * @param victim the wait that was failed
	 * @param edges the cycle, starting with the victim's wait
	 */
	public LockDeadlock {
		Objects.requireNonNull(detectedAt, "detectedAt must not be null");
		Objects.requireNonNull(victim, "victim must not be null");
		edges = List.copyOf(edges);
		if (edges.isEmpty()) {
			throw new IllegalArgumentException("A deadlock has at least one edge");
		}
	}

	/**
	 * The lock the victim waited for: the first edge of the cycle that starts at it.
	 * @return the lock, name, key and mode
	 */
	public LockRef victimWaitsFor() {
		for (Edge edge : this.edges) {
			if (edge.waiter().equals(this.victim)) {
				return edge.waitsFor();
			}
		}
		return this.edges.get(0).waitsFor();
	}

	/**
	 * The cycle edge by edge, two lines an edge ("waits for", then "holds", or
	 * "waits ahead for" where the other party is a waiter ahead), each
	 * indented by two spaces; a party's session is named only where two parties share
	 * application, host and process.
	 * @return the lines, joined by line breaks
	 */
	public String describe() {
		Map<String, Set<Long>> sessions = new HashMap<>();
		for (Edge edge : this.edges) {
			for (Party party : List.of(edge.waiter(), edge.holder())) {
				sessions.computeIfAbsent(party.process(), (process) -> new HashSet<>()).add(party.session());
			}
		}
		Predicate<Party> named = (party) -> sessions.getOrDefault(party.process(), Set.of()).size() > 1;
		StringBuilder lines = new StringBuilder();
		for (Edge edge : this.edges) {
			if (!lines.isEmpty()) {
				lines.append('\n');
			}
			lines.append("  ").append(edge.waiter().describe(named.test(edge.waiter())))
				.append(" waits for ").append(edge.waitsFor().describe()).append('\n');
			lines.append("  ").append(edge.holder().describe(named.test(edge.holder())))
				.append(edge.waitsAhead() ? " waits ahead for " : " holds ").append(edge.holds().describe());
		}
		return lines.toString();
	}

	/**
	 * One member of a deadlock: a thread of an instance, or an asynchronous
	 * acquisition, which has no thread of its own.
	 *
	 * @param app the application name, {@code null} when not configured
	 * @param host the host name
	 * @param pid the process id
	 * @param session the ZooKeeper session of its lock manager
	 * @param thread the thread name, or {@code async} and the acquisition's number
	 */
	public record Party(@Nullable String app, String host, long pid, long session, String thread)
			implements Serializable {

		/**
		 * Create a new instance.
		 * @param app the application name, {@code null} when not configured
		 * @param host the host name
		 * @param pid the process id
		 * @param session the ZooKeeper session of its lock manager
		 * @param thread the thread name
		 */
		public Party {
			Objects.requireNonNull(host, "host must not be null");
			Objects.requireNonNull(thread, "thread must not be null");
		}

		// the instance as far as the message tells them apart without sessions
		private String process() {
			return ((this.app != null) ? this.app + "@" : "") + this.host + " pid " + this.pid;
		}

		private String describe(boolean withSession) {
			return process() + (withSession ? " session 0x" + Long.toHexString(this.session) : "") + " thread '"
					+ this.thread + "'";
		}

	}

	/**
	 * One lock as a deadlock names it.
	 *
	 * @param name the lock name
	 * @param key the key, {@code null} for a lock without keys
	 * @param mode the mode
	 */
	public record LockRef(String name, @Nullable String key, LockMode mode) implements Serializable {

		/**
		 * Create a new instance.
		 * @param name the lock name
		 * @param key the key, {@code null} for a lock without keys
		 * @param mode the mode
		 */
		public LockRef {
			Objects.requireNonNull(name, "name must not be null");
			Objects.requireNonNull(mode, "mode must not be null");
		}

		/**
		 * The lock as messages name it: {@code 'stock' key '7' (MUTEX)}.
		 * @return the text
		 */
		public String describe() {
			return "'" + this.name + "'" + ((this.key != null) ? " key '" + LockPaths.abbreviate(this.key) + "'" : "") + " ("
					+ this.mode + ")";
		}

	}

	/**
	 * One edge of the cycle: a waiter and the holder that keeps it waiting.
	 *
	 * @param waiter who waits
	 * @param waitsFor the lock it waits for
	 * @param holder who keeps it waiting, holding a node ahead of it or waiting ahead
	 * of it
	 * @param holds the lock of that node: the same path, in the mode the holder has
	 * there, or waits for when it waits ahead
	 * @param waitsAhead whether the holder only waits ahead of the waiter, holding
	 * nothing there yet
	 */
	public record Edge(Party waiter, LockRef waitsFor, Party holder, LockRef holds, boolean waitsAhead)
			implements Serializable {

		/**
		 * Create an edge to a holder.
		 * @param waiter who waits
		 * @param waitsFor the lock it waits for
		 * @param holder who holds a node ahead of it
		 * @param holds the lock of that node
		 */
		public Edge(Party waiter, LockRef waitsFor, Party holder, LockRef holds) {
			this(waiter, waitsFor, holder, holds, false);
		}

		/**
		 * Create a new instance.
		 * @param waiter who waits
		 * @param waitsFor the lock it waits for
		 * @param holder who keeps it waiting
		 * @param holds the lock of the node ahead
		 */
		public Edge {
			Objects.requireNonNull(waiter, "waiter must not be null");
			Objects.requireNonNull(waitsFor, "waitsFor must not be null");
			Objects.requireNonNull(holder, "holder must not be null");
			Objects.requireNonNull(holds, "holds must not be null");
		}

	}

}
