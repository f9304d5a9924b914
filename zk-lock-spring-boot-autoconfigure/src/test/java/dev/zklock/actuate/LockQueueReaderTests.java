package dev.zklock.actuate;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.actuate.LockQueuesDescriptor.Participant;
import dev.zklock.annotation.LockMode;
import dev.zklock.core.CuratorLockManager;
import dev.zklock.core.LockOwnerData;
import dev.zklock.core.OtherInstance;
import dev.zklock.testsupport.StoppableZooKeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Reading lock queues from a real ZooKeeper: order and state per recipe, and no
 * way out of the base path whatever the name.
 */
class LockQueueReaderTests {

	private static StoppableZooKeeper server;

	private static CuratorFramework client;

	private String basePath;

	private CuratorLockManager manager;

	private LockQueueReader reader;

	@BeforeAll
	static void startServer() {
		server = StoppableZooKeeper.start();
		client = server.newClient(30_000);
	}

	@AfterAll
	static void stopServer() {
		client.close();
		server.close();
	}

	@BeforeEach
	void createReader() {
		this.basePath = "/queues-" + UUID.randomUUID();
		this.manager = new CuratorLockManager(client, this.basePath, Duration.ofSeconds(30));
		this.reader = new LockQueueReader(client);
	}

	@Test
	void namesAreOneSegmentUnderTheBasePath() throws Exception {
		client.create().creatingParentsIfNeeded().forPath("/outside/k/_c_x-lock-0000000000", bytes("secret"));
		client.create().creatingParentsIfNeeded().forPath(this.basePath + "/inside/k");
		for (String name : List.of("..", ".", "../outside", "../../outside", "/outside", "/zookeeper", "zookeeper",
				"inside/k", "inside/..", "%2E%2E", "", " ")) {
			assertThat(this.reader.read(this.basePath, name)).as("name '%s'", name).isNull();
		}
		assertThat(this.reader.read(this.basePath, "inside")).isNotNull();
	}

	@Test
	void readersHoldUntilTheFirstWriter() throws Exception {
		try (OtherInstance other = new OtherInstance(server, this.basePath);
				OtherInstance.Holder reader1 = OtherInstance.hold(this.manager, request(LockMode.READ), "r1");
				OtherInstance.Holder reader2 = other.hold(request(LockMode.READ), "r2")) {
			CompletableFuture<Boolean> writer = acquireLater(other, request(LockMode.WRITE));
			awaitNodes(3);
			CompletableFuture<Boolean> reader3 = acquireLater(other, request(LockMode.READ));
			awaitNodes(4);
			List<Participant> participants = participants("catalog");
			assertThat(participants).extracting(Participant::mode).containsExactly("READ", "READ", "WRITE", "READ");
			assertThat(participants).extracting(Participant::state)
				.containsExactly("HELD", "HELD", "WAITING", "WAITING");
			assertThat(participants).extracting(Participant::fencingToken)
				.satisfiesExactly((token) -> assertThat(token).isPositive(), (token) -> assertThat(token).isPositive(),
						(token) -> assertThat(token).isNull(), (token) -> assertThat(token).isNull());
			reader1.close();
			reader2.close();
			assertThat(writer.get()).isTrue();
			assertThat(reader3.get()).isTrue();
		}
	}

	@Test
	void semaphoresShowLeasesThenTheQueue() throws Exception {
		LockRequest request = LockRequest.named("catalog").keys("shelf").mode(LockMode.SEMAPHORE).permits(2).build();
		try (OtherInstance other = new OtherInstance(server, this.basePath);
				OtherInstance.Holder first = OtherInstance.hold(this.manager, request, "s1");
				OtherInstance.Holder second = other.hold(request, "s2")) {
			CompletableFuture<Boolean> third = acquireLater(other, request);
			await().atMost(Duration.ofSeconds(10))
				.until(() -> client.getChildren().forPath(this.basePath + "/catalog/shelf/leases").size() == 3);
			List<Participant> participants = participants("catalog");
			assertThat(participants).extracting(Participant::mode).containsOnly("SEMAPHORE");
			assertThat(participants).extracting(Participant::state).containsExactly("HELD", "HELD", "ACQUIRING");
			assertThat(participants.get(0).fencingToken()).isPositive();
			assertThat(participants.get(2).fencingToken()).isNull();
			assertThat(participants).extracting(Participant::node).allMatch((node) -> node.contains("lease-"));
			CompletableFuture<Boolean> fourth = acquireLater(other, request);
			await().atMost(Duration.ofSeconds(10))
				.until(() -> client.getChildren().forPath(this.basePath + "/catalog/shelf/locks").size() == 2);
			assertThat(participants("catalog")).extracting(Participant::state)
				.containsExactly("HELD", "HELD", "ACQUIRING", "WAITING");
			first.close();
			second.close();
			assertThat(third.get()).isTrue();
			assertThat(fourth.get()).isTrue();
		}
	}

	@Test
	void aBurstShowsHoldersThatQueuedBeforeTheHeadAsHeld() throws Exception {
		LockRequest request = semaphore(3);
		try (Burst burst = Burst.start(this.manager, request, 8)) {
			awaitSemaphore(4, 5);
			List<Participant> participants = participants("catalog");
			assertThat(participants).extracting(Participant::state)
				.containsExactly("HELD", "HELD", "HELD", "ACQUIRING", "WAITING", "WAITING", "WAITING", "WAITING");
			assertThat(participants.subList(0, 3)).extracting(Participant::owner)
				.map(LockQueueReaderTests::thread)
				.containsExactlyInAnyOrderElementsOf(burst.holders());
			assertThat(participants.subList(0, 3)).allSatisfy((held) -> assertThat(held.fencingToken()).isPositive());
			List<String> queue = queueThreads();
			assertThat(thread(participants.get(3).owner())).isEqualTo(queue.get(0));
			assertThat(participants.get(3).node()).contains("lease-");
			assertThat(participants.get(3).fencingToken()).isNull();
			assertThat(participants.subList(4, 8)).extracting(Participant::owner)
				.map(LockQueueReaderTests::thread)
				.containsExactlyElementsOf(queue.subList(1, 5));
			assertThat(participants.subList(4, 8)).extracting(Participant::sequence).isSorted();
		}
	}

	@Test
	void withoutOwnerDataTheHeadsLeaseIsShownOnlyWhileTheQueueIsUnchanged() throws Exception {
		this.manager.setOwnerData(LockOwnerData.none());
		LockRequest request = semaphore(3);
		try (Burst burst = Burst.start(this.manager, request, 8)) {
			awaitSemaphore(4, 5);
			assertThat(participants("catalog")).extracting(Participant::state)
				.containsExactly("HELD", "HELD", "HELD", "ACQUIRING", "WAITING", "WAITING", "WAITING", "WAITING");
			try (Burst late = Burst.start(this.manager, request, 1)) {
				awaitSemaphore(4, 6);
				List<Participant> participants = participants("catalog");
				assertThat(participants).extracting(Participant::state)
					.containsExactly("HELD", "HELD", "HELD", "HELD", "WAITING", "WAITING", "WAITING", "WAITING",
							"WAITING", "WAITING");
				assertThat(participants.subList(0, 4)).extracting(Participant::node)
					.allMatch((node) -> node.contains("lease-"));
				burst.release();
			}
		}
	}

	@Test
	void ownersAreTheNodeData() throws Exception {
		String keyPath = this.basePath + "/billing/" + "a%2Fb";
		client.create()
			.creatingParentContainersIfNeeded()
			.withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
			.forPath(keyPath + "/_c_1-lock-", bytes("inventory@host-1 pid 42 thread main"));
		LockQueuesDescriptor queues = this.reader.read(this.basePath, "billing");
		assertThat(queues.keys()).singleElement().satisfies((key) -> {
			assertThat(key.key()).isEqualTo("a/b");
			assertThat(key.participants()).singleElement()
				.satisfies((participant) -> assertThat(participant.owner())
					.isEqualTo("inventory@host-1 pid 42 thread main"));
		});
	}

	@Test
	void decodesKeySegments() {
		assertThat(LockQueueReader.decode("#nokey")).isNull();
		assertThat(LockQueueReader.decode("#empty")).isEmpty();
		assertThat(LockQueueReader.decode("order%2F1%20%C3%A9")).isEqualTo("order/1 é");
		assertThat(LockQueueReader.decode("%2E%2E")).isEqualTo("..");
		assertThat(LockQueueReader.decode("abc#0123")).isEqualTo("abc#0123");
		assertThat(LockQueueReader.decode("bad%ZZ")).isEqualTo("bad%ZZ");
		assertThat(LockQueueReader.sequence("_c_x-lock-0000000042")).isEqualTo(42);
		assertThat(LockQueueReader.sequence("locks")).isEqualTo(-1);
	}

	private List<Participant> participants(String name) {
		LockQueuesDescriptor queues = this.reader.read(this.basePath, name);
		assertThat(queues.keys()).hasSize(1);
		return queues.keys().get(0).participants();
	}

	private void awaitNodes(int count) {
		await().atMost(Duration.ofSeconds(10))
			.until(() -> client.getChildren().forPath(this.basePath + "/catalog/shelf").size() == count);
	}

	private static LockRequest request(LockMode mode) {
		return LockRequest.named("catalog").keys("shelf").mode(mode).build();
	}

	// A thread per waiter: the common pool may have a single thread on 2 cores, and each waiter blocks
	private static CompletableFuture<Boolean> acquireLater(OtherInstance other, LockRequest request) {
		return CompletableFuture.supplyAsync(() -> {
			try (LockHandle handle = other.manager().acquire(request)) {
				return handle.isAcquired();
			}
		}, (task) -> new Thread(task, "waiter-" + request.mode()).start());
	}

	private static LockRequest semaphore(int permits) {
		return LockRequest.named("catalog")
			.keys("shelf")
			.mode(LockMode.SEMAPHORE)
			.permits(permits)
			.timeout(Duration.ofSeconds(30))
			.build();
	}

	private void awaitSemaphore(int leases, int queued) {
		String keyPath = this.basePath + "/catalog/shelf";
		await().atMost(Duration.ofSeconds(10))
			.until(() -> client.getChildren().forPath(keyPath + "/leases").size() == leases
					&& client.getChildren().forPath(keyPath + "/locks").size() == queued);
	}

	// Threads of the inner queue, in queue order
	private List<String> queueThreads() throws Exception {
		String queuePath = this.basePath + "/catalog/shelf/locks";
		List<String> nodes = new ArrayList<>(client.getChildren().forPath(queuePath));
		nodes.sort(Comparator.comparingLong(LockQueueReader::sequence));
		List<String> threads = new ArrayList<>();
		for (String node : nodes) {
			threads.add(thread(new String(client.getData().forPath(queuePath + "/" + node), StandardCharsets.UTF_8)));
		}
		return threads;
	}

	private static String thread(String owner) {
		Matcher matcher = Pattern.compile("\"thread\":\"([^\"]*)\"").matcher(owner);
		assertThat(matcher.find()).as("owner %s names a thread", owner).isTrue();
		return matcher.group(1);
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * Threads that queue on a semaphore all at once: a node of the test's own blocks
	 * the inner queue until every thread has queued behind it, so each holder takes
	 * its lease after the later threads queued. Holders keep their lease until
	 * {@link #release()}.
	 */
	private static final class Burst implements AutoCloseable {

		private final CountDownLatch released = new CountDownLatch(1);

		private final List<String> holders = new CopyOnWriteArrayList<>();

		private final List<Thread> threads = new ArrayList<>();

		private final List<Throwable> failures = new CopyOnWriteArrayList<>();

		static Burst start(CuratorLockManager manager, LockRequest request, int count) throws Exception {
			String queuePath = manager.pathFor(request.name(), request.keys().iterator().next()) + "/locks";
			String blocker = client.create()
				.creatingParentContainersIfNeeded()
				.withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
				.forPath(queuePath + "/_c_blocker-lock-");
			int before = client.getChildren().forPath(queuePath).size();
			Burst burst = new Burst();
			for (int i = 0; i < count; i++) {
				Thread thread = new Thread(() -> burst.hold(manager, request), "burst-" + UUID.randomUUID());
				burst.threads.add(thread);
				thread.start();
			}
			await().atMost(Duration.ofSeconds(10))
				.until(() -> client.getChildren().forPath(queuePath).size() == before + count);
			client.delete().forPath(blocker);
			return burst;
		}

		private void hold(CuratorLockManager manager, LockRequest request) {
			try (LockHandle handle = manager.acquire(request)) {
				assertThat(handle.isAcquired()).isTrue();
				this.holders.add(Thread.currentThread().getName());
				this.released.await();
			}
			catch (Throwable ex) {
				this.failures.add(ex);
			}
		}

		List<String> holders() {
			await().atMost(Duration.ofSeconds(10)).until(() -> this.holders.size() >= 3);
			return List.copyOf(this.holders);
		}

		void release() {
			this.released.countDown();
		}

		@Override
		public void close() throws InterruptedException {
			release();
			for (Thread thread : this.threads) {
				thread.join(30_000);
				assertThat(thread.isAlive()).as("%s finished", thread.getName()).isFalse();
			}
			assertThat(this.failures).isEmpty();
		}

	}

}
