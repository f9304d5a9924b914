package dev.zklock.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import org.apache.curator.framework.CuratorFramework;
import org.jspecify.annotations.Nullable;

/**
 * The Curator client that zk-lock uses, and how it was chosen: shared with the
 * application (Spring Cloud Zookeeper's client, or a {@link CuratorFramework} bean of
 * your own) or dedicated to zk-lock. zk-lock's own beans take their client from here.
 * A dedicated client is also a bean qualified {@value #QUALIFIER}, which is not a
 * default candidate: it is injected only where that qualifier is asked for.
 * <p>
 * Closing closes a dedicated client only; a shared client belongs to the application.
 */
public final class ZkLockClient implements AutoCloseable {

	/**
	 * Qualifier of the {@link CuratorFramework} bean that zk-lock uses, for example
	 * {@code @Qualifier(ZkLockClient.QUALIFIER) CuratorFramework client}.
	 */
	public static final String QUALIFIER = "zkLock";

	private final CuratorFramework curatorFramework;

	private final @Nullable String sharedBeanName;

	private ZkLockClient(CuratorFramework curatorFramework, @Nullable String sharedBeanName) {
		this.curatorFramework = Objects.requireNonNull(curatorFramework, "curatorFramework must not be null");
		this.sharedBeanName = sharedBeanName;
	}

	/**
	 * Create a client shared with the application.
	 * @param curatorFramework the application's client
	 * @param beanName the name of its bean
	 * @return the shared client
	 */
	public static ZkLockClient shared(CuratorFramework curatorFramework, String beanName) {
		return new ZkLockClient(curatorFramework, Objects.requireNonNull(beanName, "beanName must not be null"));
	}

	/**
	 * Create a client of zk-lock's own, which {@link #close()} closes.
	 * @param curatorFramework the client
	 * @return the dedicated client
	 */
	public static ZkLockClient dedicated(CuratorFramework curatorFramework) {
		return new ZkLockClient(curatorFramework, null);
	}

	/**
	 * Return the Curator client.
	 * @return the client
	 */
	public CuratorFramework getCuratorFramework() {
		return this.curatorFramework;
	}

	/**
	 * Return whether the client is shared with the application.
	 * @return {@code true} when shared, {@code false} when dedicated to zk-lock
	 */
	public boolean isShared() {
		return this.sharedBeanName != null;
	}

	/**
	 * Return the name of the shared bean.
	 * @return the bean name, or {@code null} when the client is dedicated
	 */
	public @Nullable String getSharedBeanName() {
		return this.sharedBeanName;
	}

	/**
	 * Return {@code shared} or {@code dedicated}, as reported by health, metrics and
	 * the locks endpoint.
	 * @return the mode in use
	 */
	public String getMode() {
		return isShared() ? "shared" : "dedicated";
	}

	/**
	 * Describe the client for health and the locks endpoint: its mode and, when
	 * shared, the bean.
	 * @return the mode and, when shared, the bean name
	 */
	public Map<String, Object> describe() {
		Map<String, Object> description = new LinkedHashMap<>();
		description.put("mode", getMode());
		if (isShared()) {
			description.put("bean", this.sharedBeanName);
		}
		return description;
	}

	@Override
	public void close() {
		if (!isShared()) {
			this.curatorFramework.close();
		}
	}

	@Override
	public String toString() {
		return isShared() ? "shared (bean '" + this.sharedBeanName + "')" : "dedicated";
	}

}
