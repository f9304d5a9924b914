package dev.zklock.core;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntConsumer;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

import dev.zklock.testsupport.ParentWatchdog;

/**
 * What a worker JVM's main method needs: its {@code --name=value} arguments, a
 * connected client, and its threads started and stopped on the parent's commands.
 */
final class WorkerArguments {

	private WorkerArguments() {
	}

	static Map<String, String> parse(String[] args) {
		Map<String, String> arguments = new LinkedHashMap<>();
		for (String arg : args) {
			int equals = arg.indexOf('=');
			arguments.put(arg.substring(2, equals), arg.substring(equals + 1));
		}
		return arguments;
	}

	static String require(Map<String, String> arguments, String name) {
		String value = arguments.get(name);
		if (value == null) {
			throw new IllegalArgumentException("Missing argument --" + name + "=");
		}
		return value;
	}

	/**
	 * A started client, connected within 30 s.
	 */
	static CuratorFramework connect(String connectString, int sessionTimeoutMillis) throws InterruptedException {
		CuratorFramework client = CuratorFrameworkFactory.builder()
			.connectString(connectString)
			.sessionTimeoutMs(sessionTimeoutMillis)
			.connectionTimeoutMs(15_000)
			.retryPolicy(new ExponentialBackoffRetry(100, 3))
			.build();
		client.start();
		if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
			client.close();
			throw new IllegalStateException("Could not connect to " + connectString + " within 30 s");
		}
		return client;
	}

	/**
	 * Start {@code count} daemon threads running {@code loop} on the parent's
	 * {@code go}; on {@code stop}, set {@code stopped} and wait for them to end.
	 */
	static void runThreads(String id, int count, IntConsumer loop, AtomicBoolean stopped)
			throws InterruptedException {
		List<Thread> threads = new ArrayList<>();
		while (true) {
			String command = ParentWatchdog.commands().take();
			if (command.equals("go")) {
				for (int i = 0; i < count; i++) {
					int number = i;
					Thread thread = new Thread(() -> loop.accept(number), id + "-" + number);
					thread.setDaemon(true);
					threads.add(thread);
					thread.start();
				}
			}
			else if (command.equals("stop")) {
				stopped.set(true);
				for (Thread thread : threads) {
					thread.join(30_000);
				}
				return;
			}
		}
	}

}
