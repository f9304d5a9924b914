package dev.zklock.schedules;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.core.LockPaths;
import dev.zklock.core.LockNodeNames;
import dev.zklock.schedules.Schedule.DeleteNode;
import dev.zklock.schedules.Schedule.Family;
import dev.zklock.schedules.Schedule.Step;

/**
 * Runs a schedule's {@link DeleteNode} steps: another client deletes a holder's node
 * with a plain ZooKeeper delete, at the step's offset whatever the workers are doing.
 */
final class NodeDeleter {

	private static final Logger logger = LoggerFactory.getLogger(NodeDeleter.class);

	private NodeDeleter() {
	}

	/**
	 * Schedule every deletion of a schedule on the timers.
	 * @param schedule the schedule
	 * @param start when it starts, in {@link System#nanoTime()}
	 * @param timers the timers
	 * @param admin a client that no fault reaches
	 * @param history where deletions go
	 * @param basePath the schedule's base path
	 */
	static void schedule(Schedule schedule, long start, ScheduledExecutorService timers, CuratorFramework admin,
			History history, String basePath) {
		for (Step step : schedule.steps()) {
			if (step.op() instanceof DeleteNode delete) {
				timers.schedule(() -> delete(delete, admin, history, basePath),
						start - System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(step.atMillis()),
						TimeUnit.NANOSECONDS);
			}
		}
	}

	// One node, the first holder in queue order (the MUTEX or WRITE holder, the first READ holder, the first lease).
	// That is enough for the holder to have to notice, and a single deletion keeps the history simple
	private static void delete(DeleteNode delete, CuratorFramework admin, History history, String basePath) {
		String lockKey = delete.family().lockName + "/" + delete.key();
		String keyPath = basePath + "/" + LockPaths.encode(delete.family().lockName) + "/"
				+ LockPaths.encode(delete.key());
		long start = System.nanoTime();
		try {
			List<String> children = admin.getChildren().forPath(keyPath);
			Optional<String> holder = (delete.family() == Family.SEMAPHORE)
					? children.stream()
						.filter((child) -> child.contains(LockNodeNames.LEASE))
						.min(Comparator.comparingLong(LockNodeNames::sequence))
					: LockNodeNames.holders(children).stream().findFirst();
			if (holder.isEmpty()) {
				return;
			}
			String path = keyPath + "/" + holder.get();
			Stat stat = admin.checkExists().forPath(path);
			if (stat == null) {
				return;
			}
			// sequential names are never reused: the node deleted is the one whose zxid was read
			admin.delete().forPath(path);
			history.deletion(new History.Deletion(lockKey, holder.get(), stat.getCzxid(), start, System.nanoTime()));
		}
		catch (KeeperException.NoNodeException ex) {
			// nobody holds it, or the holder released meanwhile: nothing deleted
		}
		catch (Exception ex) {
			if (ex instanceof InterruptedException) {
				Thread.currentThread().interrupt();
			}
			logger.debug("Deletion of a holder's node of {} under {} failed: {}", lockKey, basePath, ex.toString());
		}
	}

}
