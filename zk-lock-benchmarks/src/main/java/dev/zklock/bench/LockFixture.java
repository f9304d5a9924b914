package dev.zklock.bench;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import dev.zklock.LockRequest;
import dev.zklock.LockTemplate;

/**
 * Everything a benchmark fork locks with, all on the one Curator client of the
 * Spring context: zk-lock's proxy and template, the raw ZooKeeper handle, and
 * through {@link CuratorRecipes} and {@link SpringIntegrationLocks} the raw Curator
 * recipes and Spring Integration's registries. Every contender locks paths of the
 * same depth.
 */
@State(Scope.Benchmark)
public class LockFixture {

	/**
	 * The key of the uncontended runs.
	 */
	public static final String KEY = "k";

	/**
	 * The key every contended thread wants.
	 */
	public static final String CONTENDED_KEY = "one";

	/**
	 * Permits of the contended semaphore rows.
	 */
	public static final int CONTENDED_PERMITS = 3;

	private static final String RAW_PARENT = "/bench/zookeeper/mutex/" + KEY;

	private static final byte[] NO_DATA = new byte[0];

	private BenchContext context;

	private CuratorFramework client;

	private LockedService service;

	private LockTemplate template;

	private ZooKeeper zooKeeper;

	private CuratorRecipes curatorRecipes;

	private SpringIntegrationLocks springIntegration;

	/**
	 * Start the Spring context and create the raw recipes.
	 * @throws Exception when ZooKeeper fails
	 */
	@Setup(Level.Trial)
	public void start() throws Exception {
		this.context = BenchContext.start();
		this.client = this.context.client();
		this.service = this.context.service();
		this.template = this.context.template();
		this.zooKeeper = this.client.getZookeeperClient().getZooKeeper();
		try {
			this.client.create().creatingParentsIfNeeded().forPath(RAW_PARENT);
		}
		catch (KeeperException.NodeExistsException ex) {
			// made by an earlier fork, or by the other JVM of a two-JVM run
		}
		this.curatorRecipes = new CuratorRecipes(this.client);
		this.springIntegration = new SpringIntegrationLocks(this.client);
	}

	/**
	 * Close everything.
	 */
	@TearDown(Level.Trial)
	public void stop() {
		this.springIntegration.destroy();
		this.context.close();
	}

	/**
	 * The Curator client.
	 * @return the client
	 */
	public CuratorFramework client() {
		return this.client;
	}

	/**
	 * The Spring context.
	 * @return the context
	 */
	public BenchContext context() {
		return this.context;
	}

	/**
	 * The annotated bean behind its proxy.
	 * @return the proxy
	 */
	public LockedService service() {
		return this.service;
	}

	/**
	 * One cycle of the annotated method of a mode, through the proxy.
	 * @param mode {@code MUTEX}, {@code READ}, {@code WRITE}, {@code SEMAPHORE1} or
	 * {@code SEMAPHORE3} (one or three permits)
	 */
	public void annotated(String mode) {
		switch (mode) {
			case "READ" -> this.service.read(KEY);
			case "WRITE" -> this.service.write(KEY);
			case "SEMAPHORE1" -> this.service.semaphore(KEY);
			case "SEMAPHORE3" -> this.service.semaphore3(KEY);
			default -> this.service.mutex(KEY);
		}
	}

	/**
	 * The floor: one ephemeral sequential node created and deleted.
	 * @throws Exception when ZooKeeper fails
	 */
	public void zooKeeperCreateDelete() throws Exception {
		String node = this.zooKeeper.create(RAW_PARENT + "/lock-", NO_DATA, ZooDefs.Ids.OPEN_ACL_UNSAFE,
				CreateMode.EPHEMERAL_SEQUENTIAL);
		this.zooKeeper.delete(node, -1);
	}

	/**
	 * The floor under a parent of the caller's: one ephemeral sequential node created
	 * and deleted.
	 * @param parent an existing persistent node
	 * @throws Exception when ZooKeeper fails
	 */
	public void zooKeeperCreateDelete(String parent) throws Exception {
		String node = this.zooKeeper.create(parent + "/lock-", NO_DATA, ZooDefs.Ids.OPEN_ACL_UNSAFE,
				CreateMode.EPHEMERAL_SEQUENTIAL);
		this.zooKeeper.delete(node, -1);
	}

	/**
	 * zk-lock's template on a lock and key of the caller's, with a request built per
	 * call as an application would.
	 * @param name the lock name
	 * @param key the key
	 */
	@SuppressWarnings("NullAway")
	public void template(String name, String key) {
		this.template.execute(LockRequest.named(name).keys(key).build(), () -> null);
	}

	/**
	 * zk-lock's template, with a request built per call as an application would.
	 */
	// NullAway false positive: execute's T extends @Nullable Object, so null is a valid result.
	// NullAway infers a non-null T from the lambda, and an explicit <@Nullable Void> fails on
	// JDK 17, whose javac does not read that bound from LockTemplate's class file (JDK 22 does)
	@SuppressWarnings("NullAway")
	public void template() {
		this.template.execute(LockRequest.named("template").keys(KEY).build(), () -> null);
	}

	/**
	 * Curator's own recipes, raw.
	 * @return the recipes
	 */
	public CuratorRecipes curatorRecipes() {
		return this.curatorRecipes;
	}

	/**
	 * Spring Integration's registries.
	 * @return the registries' locks
	 */
	public SpringIntegrationLocks springIntegration() {
		return this.springIntegration;
	}

}
