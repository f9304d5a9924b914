package dev.zklock.actuate;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.zklock.LockException;
import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.actuate.LockQueuesDescriptor.Participant;
import dev.zklock.annotation.LockMode;
import dev.zklock.core.CuratorLockManager;
import dev.zklock.core.OtherInstance;
import dev.zklock.testsupport.StoppableZooKeeper;
import dev.zklock.testsupport.ZooKeeperProxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
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
	void aReadThatZooKeeperDoesNotAnswerFailsWithinTheEndpointsBound() throws Exception {
		int port = Integer.parseInt(server.connectString().substring(server.connectString().lastIndexOf(':') + 1));
		try (ZooKeeperProxy proxy = ZooKeeperProxy.start("queues", List.of(port));
				CuratorFramework proxied = CuratorFrameworkFactory.newClient(proxy.connectString(), 30_000, 15_000,
						new ExponentialBackoffRetry(100, 10))) {
			proxied.start();
			assertThat(proxied.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
			try (LockHandle held = this.manager.acquire(request(LockMode.MUTEX))) {
				LockQueueReader proxiedReader = new LockQueueReader(proxied);
				assertThat(proxiedReader.read(this.basePath, "catalog")).isNotNull();
				// the traffic is dropped silently: Curator still counts the connection up
				proxy.blackhole();
				long start = System.nanoTime();
				assertThatExceptionOfType(LockException.class)
					.isThrownBy(() -> proxiedReader.read(this.basePath, "catalog"))
					.withMessageContaining("'catalog'")
					.withMessageContaining("did not answer");
				assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
				assertThat(proxied.getZookeeperClient().isConnected()).isTrue();
				proxy.pass();
			}
		}
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
	void aReadInsideAWriteHoldsBesideItsWriteAndTheNextWriterWaits() throws Exception {
		try (OtherInstance other = new OtherInstance(server, this.basePath);
				LockHandle write = this.manager.acquire(request(LockMode.WRITE));
				LockHandle read = this.manager.acquire(request(LockMode.READ))) {
			CompletableFuture<Boolean> writer = acquireLater(other, request(LockMode.WRITE));
			awaitNodes(3);
			// the READ node carries the WRITE node's sequence, so the two sort together ahead of the waiter
			assertThat(participants("catalog")).extracting((participant) -> participant.mode() + " "
					+ participant.state())
				.containsExactlyInAnyOrder("WRITE HELD", "READ HELD", "WRITE WAITING");
			read.close();
			write.close();
			assertThat(writer.get()).isTrue();
		}
	}

	@Test
	void semaphoresShowHoldersThenWaitersInOneQueue() throws Exception {
		LockRequest request = LockRequest.named("catalog").keys("shelf").mode(LockMode.SEMAPHORE).permits(2).build();
		try (OtherInstance other = new OtherInstance(server, this.basePath);
				OtherInstance.Holder first = OtherInstance.hold(this.manager, request, "s1");
				OtherInstance.Holder second = other.hold(request, "s2")) {
			CompletableFuture<Boolean> third = acquireLater(other, request);
			awaitNodes(3);
			CompletableFuture<Boolean> fourth = acquireLater(other, request);
			awaitNodes(4);
			List<Participant> participants = participants("catalog");
			assertThat(participants).extracting(Participant::mode).containsOnly("SEMAPHORE");
			assertThat(participants).extracting(Participant::state)
				.containsExactly("HELD", "HELD", "WAITING", "WAITING");
			assertThat(participants).extracting(Participant::node).allMatch((node) -> node.contains("lease-2-"));
			assertThat(participants).extracting(Participant::sequence).isSorted();
			assertThat(participants.get(0).fencingToken()).isPositive();
			assertThat(participants.get(1).fencingToken()).isPositive();
			assertThat(participants.get(2).fencingToken()).isNull();
			// one permit comes free: the waiters pass one after the other, while s2 still holds
			first.close();
			assertThat(third.get(10, TimeUnit.SECONDS)).isTrue();
			assertThat(fourth.get(10, TimeUnit.SECONDS)).isTrue();
			assertThat(participants("catalog")).singleElement()
				.satisfies((held) -> assertThat(held.state()).isEqualTo("HELD"));
		}
	}

	@Test
	void aLeaseHoldsWithFewerLeasesAheadThanThePermitsInItsName() {
		assertThat(LockQueueReader.permits("_c_0f3e-lease-3-0000000012")).isEqualTo(3);
		assertThat(LockQueueReader.permits("_c_0f3e-lease-12-0000000012")).isEqualTo(12);
		assertThat(LockQueueReader.permits("lease-0000000012")).isZero();
		assertThat(LockQueueReader.permits("leases")).isZero();
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

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
