package dev.zklock.actuate;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.zklock.core.LocalHandoffs;
import dev.zklock.LocalTenure;

/**
 * The local hand-off of this process, as {@code /actuator/locks} shows it: the keys
 * locked with local hand-off right now, each with its tenure, and how many grants
 * were passed within the process or came through ZooKeeper.
 *
 * @param localHandoffs grants passed from one local holder to the next without
 * ZooKeeper, since start
 * @param zooKeeperHandoffs grants of locks with local hand-off that came through
 * ZooKeeper, since start: one per tenure
 * @param maxPasses how many passes a tenure makes at most once another process
 * waits ({@code zk-lock.local-handoff.max-passes})
 * @param tenures the keys held in a tenure or awaited by local waiters, by name,
 * key and mode
 */
public record LocalHandoffDescriptor(long localHandoffs, long zooKeeperHandoffs, int maxPasses,
		List<TenureDescriptor> tenures) {

	private static final Comparator<TenureDescriptor> ORDER = Comparator.comparing(TenureDescriptor::name)
		.thenComparing(TenureDescriptor::key, Comparator.nullsFirst(Comparator.naturalOrder()))
		.thenComparing(TenureDescriptor::mode);

	/**
	 * Describe the local hand-off of one or two engines, counting each once.
	 * @param engines the hand-offs of each distinct engine; {@code null} elements
	 * are skipped
	 * @return the descriptor, or {@code null} when there is no engine
	 */
	static @Nullable LocalHandoffDescriptor of(@Nullable LocalHandoffs... engines) {
		long local = 0;
		long zooKeeper = 0;
		int maxPasses = 0;
		boolean any = false;
		List<TenureDescriptor> tenures = new ArrayList<>();
		for (LocalHandoffs engine : engines) {
			if (engine != null) {
				local += engine.localHandoffs();
				zooKeeper += engine.zooKeeperHandoffs();
				maxPasses = Math.max(maxPasses, engine.maxPasses());
				engine.tenures().forEach((tenure) -> tenures.add(TenureDescriptor.of(tenure)));
				any = true;
			}
		}
		return any ? new LocalHandoffDescriptor(local, zooKeeper, maxPasses, tenures.stream().sorted(ORDER).toList())
				: null;
	}

	/**
	 * One key this process locks with local hand-off: the node of its tenure, the
	 * local holders sharing it and the local waiters behind them.
	 *
	 * @param name the lock name
	 * @param key the key, {@code null} for a lock without keys
	 * @param mode {@code MUTEX}, {@code READ} or {@code WRITE}
	 * @param node the name of the tenure's node, as {@code /actuator/locks/{name}}
	 * lists it; {@code null} while the node is being acquired
	 * @param fencingToken the token every holder of the tenure shares, {@code null}
	 * while the node is being acquired
	 * @param holders the names of the threads holding the key now ({@code async}
	 * for an asynchronous holder)
	 * @param waiters the number of local waiters queued behind the holders
	 * @param passes the local passes within this tenure so far
	 * @param othersWaiting whether another process is known to wait, which bounds
	 * the tenure
	 */
	public record TenureDescriptor(String name, @Nullable String key, String mode, @Nullable String node,
			@Nullable Long fencingToken, List<String> holders, int waiters, int passes, boolean othersWaiting) {

		static TenureDescriptor of(LocalTenure tenure) {
			String path = tenure.node();
			String node = (path != null) ? path.substring(path.lastIndexOf('/') + 1) : null;
			return new TenureDescriptor(tenure.name(), tenure.key(), tenure.mode().name(), node,
					(tenure.fencingToken() != 0) ? tenure.fencingToken() : null, tenure.holders(), tenure.waiters(),
					tenure.passes(), tenure.othersWaiting());
		}

	}

}
