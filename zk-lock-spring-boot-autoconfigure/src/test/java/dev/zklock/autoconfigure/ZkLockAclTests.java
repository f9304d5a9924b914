package dev.zklock.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.zklock.LockException;
import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.core.CuratorLockManager;
import dev.zklock.testsupport.InJvmZooKeeper;
import dev.zklock.testsupport.JvmProcess;
import dev.zklock.testsupport.OutputLines;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Digest authentication against a real ZooKeeper server: every node zk-lock creates,
 * from the first node it creates down to the lock node, carries a CREATOR_ALL ACL, so
 * that clients without the credentials can neither remove nor overwrite a held lock,
 * while the same credentials in another process contend for it normally.
 */
class ZkLockAclTests {

	private static final Logger logger = LoggerFactory.getLogger(ZkLockAclTests.class);

	private static final String CREDENTIALS = "orders-app:" + UUID.randomUUID();

	private static final List<ACL> CREATOR_ALL = List
		.of(new ACL(ZooDefs.Perms.ALL, new Id("digest", digest(CREDENTIALS))));

	private static InJvmZooKeeper server;

	private static CuratorFramework admin;

	private static CuratorFramework anonymous;

	private static CuratorFramework stranger;

	@BeforeAll
	static void startZooKeeper() throws Exception {
		server = InJvmZooKeeper.builder().start();
		admin = client(CREDENTIALS);
		anonymous = client(null);
		stranger = client("orders-app:not-the-password");
	}

	@AfterAll
	static void stopZooKeeper() throws Exception {
		stranger.close();
		anonymous.close();
		admin.close();
		server.close();
	}

	static Stream<Arguments> layouts() {
		String id = UUID.randomUUID().toString();
		return Stream.of(Arguments.of("nested base path", null, "/acl-" + id + "/locks"),
				Arguments.of("namespace", "acl-ns-" + id, "/locks"));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("layouts")
	void everyNodeZkLockCreatesIsCreatorAll(String layout, String namespace, String basePath) {
		runner(namespace, basePath, CREDENTIALS).run((context) -> {
			CuratorLockManager manager = manager(context.getBean(CuratorFramework.class), basePath);
			try (LockHandle handle = manager.acquire(LockRequest.named("orders").keys("42").build())) {
				assertThat(handle.isAcquired()).isTrue();
				List<String> created = createdNodes(namespace, manager.pathFor("orders", "42"));
				// top node, base path's parent or namespace, base path, name, key, lock node
				assertThat(created).hasSize(5);
				for (String path : created) {
					assertThat(admin.getACL().forPath(path)).as("ACL of %s", path).isEqualTo(CREATOR_ALL);
				}
			}
		});
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("layouts")
	void othersCannotRemoveOrOverwriteAHeldLock(String layout, String namespace, String basePath) {
		runner(namespace, basePath, CREDENTIALS).run((context) -> {
			CuratorLockManager manager = manager(context.getBean(CuratorFramework.class), basePath);
			LockRequest request = LockRequest.named("orders").keys("42").build();
			try (LockHandle handle = manager.acquire(request)) {
				List<String> created = createdNodes(namespace, manager.pathFor("orders", "42"));
				String lockNode = created.get(created.size() - 1);
				String lockPath = ZKPaths.getPathAndNode(lockNode).getPath();
				Stat before = admin.checkExists().forPath(lockNode);
				for (CuratorFramework other : List.of(anonymous, stranger)) {
					for (String path : created) {
						assertThatExceptionOfType(KeeperException.NoAuthException.class).as("setData %s", path)
							.isThrownBy(() -> other.setData().forPath(path, "x".getBytes(StandardCharsets.UTF_8)));
						assertThatExceptionOfType(KeeperException.NoAuthException.class).as("getData %s", path)
							.isThrownBy(() -> other.getData().forPath(path));
					}
					// deleting a node needs DELETE on its parent: ours for all but the top node
					for (String path : created.subList(1, created.size())) {
						assertThatExceptionOfType(KeeperException.NoAuthException.class).as("delete %s", path)
							.isThrownBy(() -> other.delete().forPath(path));
					}
					// the root's ACL, not ours, guards the top node: only its children keep it
					assertThatExceptionOfType(KeeperException.NotEmptyException.class)
						.isThrownBy(() -> other.delete().forPath(created.get(0)));
					assertThatExceptionOfType(KeeperException.NoAuthException.class)
						.isThrownBy(() -> other.create().forPath(lockPath + "/intruder"));
				}
				assertThat(admin.checkExists().forPath(lockNode)).isEqualTo(before);
				assertThat(handle.isAcquired()).isTrue();
				assertThat(acquireOnceInOtherThread(manager, request)).isFalse();
			}
			assertThat(acquireOnceInOtherThread(manager, request)).isTrue();
		});
	}

	@Test
	void anApplicationWithOtherCredentialsCannotTakeTheLock() {
		String basePath = "/acl-" + UUID.randomUUID() + "/locks";
		LockRequest request = LockRequest.named("orders").keys("42").timeout(Duration.ofSeconds(2)).build();
		runner(null, basePath, CREDENTIALS).run((context) -> {
			CuratorLockManager manager = manager(context.getBean(CuratorFramework.class), basePath);
			try (LockHandle handle = manager.acquire(request)) {
				runner(null, basePath, "orders-app:guessed").run((otherContext) -> {
					CuratorLockManager other = manager(otherContext.getBean(CuratorFramework.class), basePath);
					assertThatExceptionOfType(LockException.class).isThrownBy(() -> other.acquire(request))
						.satisfies((ex) -> logger.info("other credentials: {}", ex.getMessage()))
						.withMessageContaining("zk-lock.auth.scheme")
						.withMessageContaining("zk-lock.auth.credentials")
						.withMessageNotContaining("zk-lock.connect-string")
						.havingRootCause()
						.isInstanceOf(KeeperException.NoAuthException.class);
				});
				assertThat(handle.isAcquired()).isTrue();
				assertThat(admin.getChildren().forPath(manager.pathFor("orders", "42"))).hasSize(1);
			}
		});
	}

	@Test
	void theSameCredentialsInAnotherProcessContendNormally(@TempDir Path workerDirectory) {
		String basePath = "/acl-" + UUID.randomUUID() + "/locks";
		runner(null, basePath, CREDENTIALS).run((context) -> {
			CuratorLockManager manager = manager(context.getBean(CuratorFramework.class), basePath);
			String lockPath = manager.pathFor("orders", "7");
			LockHandle handle = manager.acquire(LockRequest.named("orders").keys("7").build());
			assertThat(handle.isAcquired()).isTrue();
			OutputLines output = new OutputLines();
			JvmProcess worker = JvmProcess.builder("lock worker", LockWorker.class.getName())
				.directory(workerDirectory)
				.environment(Map.of("ZK_LOCK_AUTH_CREDENTIALS", CREDENTIALS))
				.arguments(List.of("--zk-lock.connect-string=" + connectString(), "--zk-lock.auth.scheme=digest",
						"--zk-lock.base-path=" + basePath, "--zk-lock.startup.wait=60s", "--worker.lock=orders",
						"--worker.key=7"))
				.outputListener(output)
				.build();
			worker.start();
			try {
				output.awaitLine(worker, "WAITING", Duration.ofSeconds(90));
				// the worker queued its own node under our CREATOR_ALL parents, and waits
				await().atMost(Duration.ofSeconds(30)).until(() -> admin.getChildren().forPath(lockPath).size() == 2);
				await().during(Duration.ofMillis(500))
					.atMost(Duration.ofSeconds(2))
					.until(() -> !output.lines().contains("ACQUIRED"));
				assertThat(output.lines()).doesNotContain("FAILED", "NOT_ACQUIRED");
				long released = System.nanoTime();
				handle.close();
				output.awaitLine(worker, "ACQUIRED", Duration.ofSeconds(30));
				logger.info("worker process acquired {} ms after the release",
						Duration.ofNanos(System.nanoTime() - released).toMillis());
				List<String> nodes = admin.getChildren().forPath(lockPath);
				assertThat(nodes).hasSize(1);
				assertThat(admin.getACL().forPath(lockPath + "/" + nodes.get(0))).isEqualTo(CREATOR_ALL);
				assertThat(acquireOnceInOtherThread(manager, LockRequest.named("orders").keys("7").build())).isFalse();
				worker.send("RELEASE");
				output.awaitLine(worker, "RELEASED", Duration.ofSeconds(30));
				assertThat(worker.awaitExit(Duration.ofSeconds(30))).isZero();
			}
			finally {
				worker.kill();
			}
			assertThat(acquireOnceInOtherThread(manager, LockRequest.named("orders").keys("7").build())).isTrue();
		});
	}

	private ApplicationContextRunner runner(String namespace, String basePath, String credentials) {
		ApplicationContextRunner runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class))
			.withPropertyValues("zk-lock.connect-string=" + connectString(), "zk-lock.base-path=" + basePath,
					"zk-lock.auth.scheme=digest", "zk-lock.auth.credentials=" + credentials);
		return (namespace != null) ? runner.withPropertyValues("zk-lock.namespace=" + namespace) : runner;
	}

	private static CuratorLockManager manager(CuratorFramework client, String basePath) {
		return new CuratorLockManager(client, basePath, Duration.ofSeconds(10));
	}

	/**
	 * The nodes zk-lock created for one held lock, as absolute paths from the node
	 * below the root down to the lock node.
	 */
	private static List<String> createdNodes(String namespace, String lockPath) throws Exception {
		String absoluteLockPath = (namespace != null) ? ZKPaths.makePath(namespace, lockPath) : lockPath;
		List<String> children = admin.getChildren().forPath(absoluteLockPath);
		assertThat(children).hasSize(1);
		List<String> nodes = new ArrayList<>();
		String path = "";
		for (String segment : ZKPaths.split(absoluteLockPath)) {
			path = path + "/" + segment;
			nodes.add(path);
		}
		nodes.add(absoluteLockPath + "/" + children.get(0));
		return nodes;
	}

	private static boolean acquireOnceInOtherThread(CuratorLockManager manager, LockRequest request)
			throws Exception {
		CompletableFuture<Boolean> result = new CompletableFuture<>();
		Thread thread = new Thread(() -> {
			try (LockHandle handle = manager.acquire(request.withTimeout(Duration.ZERO))) {
				result.complete(handle.isAcquired());
			}
			catch (Throwable ex) {
				result.completeExceptionally(ex);
			}
		});
		thread.start();
		return result.get(30, TimeUnit.SECONDS);
	}

	private static CuratorFramework client(String credentials) throws InterruptedException {
		CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
			.connectString(connectString())
			.retryPolicy(new RetryOneTime(100));
		if (credentials != null) {
			builder.authorization("digest", credentials.getBytes(StandardCharsets.UTF_8));
		}
		CuratorFramework client = builder.build();
		client.start();
		assertThat(client.blockUntilConnected(30, TimeUnit.SECONDS)).isTrue();
		return client;
	}

	private static String connectString() {
		return server.connectString();
	}

	private static String digest(String credentials) {
		try {
			return DigestAuthenticationProvider.generateDigest(credentials);
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

}
