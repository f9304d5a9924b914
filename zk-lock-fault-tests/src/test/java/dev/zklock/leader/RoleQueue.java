package dev.zklock.leader;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.data.Stat;

import dev.zklock.testsupport.ZooKeeperWorkers;

/**
 * What the leadership process tests show when a role's queue is not as expected:
 * who owns its nodes, and what the workers last logged. A leaked node and a join
 * that never came read differently.
 */
final class RoleQueue {

	private RoleQueue() {
	}

	/**
	 * Each node of the queue with its owning session and its owner data.
	 * @param client a connected client
	 * @param queue the role's queue path
	 * @return the description
	 * @throws Exception when ZooKeeper cannot be read
	 */
	static String describe(CuratorFramework client, String queue) throws Exception {
		StringBuilder description = new StringBuilder("children of " + queue + ":");
		for (String child : client.getChildren().forPath(queue)) {
			Stat stat = new Stat();
			byte[] data = client.getData().storingStatIn(stat).forPath(queue + "/" + child);
			description.append("\n  ").append(child).append(", session 0x")
				.append(Long.toHexString(stat.getEphemeralOwner())).append(": ")
				.append((data != null) ? new String(data, StandardCharsets.UTF_8) : "");
		}
		return description.toString();
	}

	/**
	 * The end of a worker's log without its event lines, which would crowd out the
	 * rest.
	 * @param workers the workers' fixture
	 * @param worker the worker id
	 * @return the lines
	 * @throws IOException when the log cannot be read
	 */
	static String logLines(ZooKeeperWorkers workers, String worker) throws IOException {
		List<String> lines = Files.readAllLines(workers.worker(worker).logFile(), StandardCharsets.UTF_8)
			.stream()
			.filter((line) -> !line.startsWith("@@ "))
			.toList();
		return "log of " + worker + " without its events:\n"
				+ String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
	}

}
