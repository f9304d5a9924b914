package dev.zklock.actuate;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;

import dev.zklock.LockHandle;
import dev.zklock.LockLostException;
import dev.zklock.LockRequest;
import dev.zklock.core.CuratorLockManager;
import dev.zklock.testsupport.JvmProcess;
import dev.zklock.testsupport.ParentWatchdog;

/**
 * A lock holder in a JVM of its own, run by a {@link JvmProcess}, with
 * {@code interrupt-on-loss} on. Arguments: connect string, base path, fenced
 * register path. On {@code HOLD <round>} a thread takes lock {@code jobs} key
 * {@code k}, prints {@code HELD <round> <token>}, works 200 ms and prints
 * {@code WORKING <round>}, then works until interrupted ({@code INTERRUPTED}),
 * prints what {@code isHeld()} and {@code assertHeld()} say ({@code AFTER}),
 * releases ({@code CLOSED <round> quiet} or the exception), and on
 * {@code WRITE <round>} writes the register with its token ({@code WRITE <round>
 * ACCEPTED} or {@code REJECTED}). Each loss prints {@code LOST <round> <reason>
 * <epoch micros>}. {@code CONTROL} holds, writes and releases at once.
 */
public final class RevocableHolderMain {

	private static final Map<String, CountDownLatch> writes = new ConcurrentHashMap<>();

	private static volatile String round = "none";

	private RevocableHolderMain() {
	}

	public static void main(String[] args) throws Exception {
		try (CuratorFramework client = CuratorFrameworkFactory.newClient(args[0], 10_000, 2_000,
				new RetryNTimes(10, 100))) {
			client.start();
			if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
				report("FAILED not connected");
				return;
			}
			CuratorLockManager manager = new CuratorLockManager(client, args[1], Duration.ofSeconds(30));
			manager.setInterruptOnLoss(true);
			manager.addLockLossListener((lock, reason) -> report("LOST " + round + " " + reason + " "
					+ ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now())));
			report("READY");
			while (true) {
				String command = ParentWatchdog.commands().take();
				if (command.startsWith("HOLD ")) {
					String current = command.substring(5);
					writes.put(current, new CountDownLatch(1));
					Thread holder = new Thread(() -> hold(manager, client, args[2], current), "holder-" + current);
					holder.start();
				}
				else if (command.startsWith("WRITE ")) {
					writes.get(command.substring(6)).countDown();
				}
				else if (command.equals("CONTROL")) {
					try (LockHandle handle = manager.acquire(LockRequest.named("jobs").keys("k").build())) {
						report("WRITE control " + (FencedRegister.write(client, args[2], handle.fencingToken())
								? "ACCEPTED" : "REJECTED"));
					}
				}
				else if (command.equals("EXIT")) {
					manager.close();
					return;
				}
			}
		}
	}

	private static void hold(CuratorLockManager manager, CuratorFramework client, String register, String current) {
		try {
			LockHandle handle = manager.acquire(LockRequest.named("jobs").keys("k").build());
			long token = handle.fencingToken();
			round = current;
			report("HELD " + current + " " + token);
			try {
				// simulated work inside the lock: long enough that the node is watched
				Thread.sleep(200);
				report("WORKING " + current);
				Thread.sleep(30_000);
				report("NOT_INTERRUPTED " + current);
			}
			catch (InterruptedException ex) {
				report("INTERRUPTED " + current);
			}
			String assertHeld;
			try {
				handle.assertHeld();
				assertHeld = "passed";
			}
			catch (LockLostException ex) {
				assertHeld = "LockLostException";
			}
			report("AFTER " + current + " held=" + handle.isHeld() + " assertHeld=" + assertHeld);
			try {
				handle.close();
				report("CLOSED " + current + " quiet");
			}
			catch (RuntimeException ex) {
				report("CLOSED " + current + " " + ex.toString().replace('\n', ' '));
			}
			writes.get(current).await(30, TimeUnit.SECONDS);
			report("WRITE " + current + " "
					+ (FencedRegister.write(client, register, token) ? "ACCEPTED" : "REJECTED"));
		}
		catch (Exception ex) {
			report("FAILED " + ex.toString().replace('\n', ' '));
		}
	}

	private static void report(String line) {
		System.out.println(line);
		System.out.flush();
	}

}
