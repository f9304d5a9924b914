package dev.zklock.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.core.Ordered;

import dev.zklock.LostLockAction;

/**
 * Configuration properties for zk-lock, under {@code zk-lock.*}. In the order they
 * appear: whether zk-lock is on at all; the connection (connect string, which Curator client, namespace, session and
 * connection timeouts); the locks (base path, default timeout, hold warning and maximum
 * hold, the advisor's order); what a lost connection does to held locks (loss policy,
 * interrupting the holder, the lost-lock action) and the owner data in each node. Then
 * the nested groups, each a field: connection retries, startup, pause detection,
 * authentication, TLS and the SSL bundle, the embedded server for development, local
 * hand-off of hot keys, and deadlock detection. Last come the getters and setters, {@link #afterPropertiesSet()
 * validation} and the nested types. Validated once bound: a value zk-lock cannot use
 * fails startup with an {@link InvalidZkLockPropertyException}.
 */
@ConfigurationProperties("zk-lock")
public class ZkLockProperties implements InitializingBean {

	/**
	 * Default order of the lock advisor: ahead of the transaction interceptor, so
	 * that a lock is released only after the transaction has committed.
	 */
	public static final int DEFAULT_ASPECT_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

	/**
	 * Whether to enable zk-lock. When false, zk-lock defines no bean at all: no client,
	 * no lock managers, no advisor, no endpoints, health contributors or meters, and the
	 * application starts without ZooKeeper. For tests and profiles that do not lock.
	 */
	private boolean enabled = true;

	/**
	 * ZooKeeper connection string, a comma-separated list of host:port pairs. Not used
	 * when the embedded server or a service connection provides the connection.
	 */
	private String connectString = "localhost:2181";

	/**
	 * Which Curator client zk-lock uses. AUTO shares the application's CuratorFramework
	 * bean (Spring Cloud Zookeeper's, or your own) when no zk-lock connection setting is
	 * given, and builds zk-lock's own client otherwise. SHARED always shares it;
	 * DEDICATED always builds zk-lock's own client, which never becomes the
	 * application's CuratorFramework.
	 */
	private ClientMode clientMode = ClientMode.AUTO;

	/**
	 * Namespace (chroot) that every path the client uses is relative to.
	 */
	private @Nullable String namespace;

	/**
	 * Session timeout asked of the server, which clamps it to 2 to 20 times its
	 * tick time. The default is the largest a server with the default tick time (2s)
	 * grants.
	 */
	private Duration sessionTimeout = Duration.ofSeconds(40);

	/**
	 * How long an operation waits for a connection before it fails with a connection
	 * loss.
	 */
	private Duration connectionTimeout = Duration.ofSeconds(15);

	/**
	 * Path under which every lock node lives, relative to the namespace. Starts with
	 * '/'.
	 */
	private String basePath = "/locks";

	/**
	 * Longest wait for a lock whose annotation or request gives no timeout. 0 tries
	 * once without waiting.
	 */
	private Duration defaultTimeout = Duration.ofSeconds(10);

	/**
	 * How long a lock may be held before a warning is logged, once per hold, and
	 * counted in the 'zk.lock.hold.warnings' metric. When not set, long holds are not
	 * reported.
	 */
	private @Nullable Duration holdWarning;

	/**
	 * Longest hold of a lock whose request or annotation sets no maxHold. A lock held
	 * longer is taken away: its node is deleted so that the lock passes on, and the
	 * hold is lost with reason MAX_HOLD_EXCEEDED. When not set, holds are not capped. A
	 * minHold without a maxHold of its own must not be longer.
	 */
	private @Nullable Duration maxHold;

	/**
	 * Order of the lock advisor. The default runs it before the transaction
	 * interceptor, so that locks are released after commit.
	 */
	private int aspectOrder = DEFAULT_ASPECT_ORDER;

	/**
	 * Connection state from which held locks no longer count as held. SUSPENDED,
	 * Curator's standard error policy, puts them in doubt as soon as the connection
	 * is suspended and holds them again if the client reconnects with the same
	 * session. LOST, Curator's session policy, keeps them held through short
	 * disconnections until the session is lost. Applies to the auto-configured
	 * client; a client of your own brings its own policy.
	 */
	private ConnectionLossPolicy connectionLossPolicy = ConnectionLossPolicy.SUSPENDED;

	/**
	 * Whether to interrupt the thread that holds a lock when the lock is lost.
	 */
	private boolean interruptOnLoss;

	/**
	 * What happens when a @DistributedLock method or LockTemplate callback returns
	 * while its lock is lost or in doubt: THROW a LockLostException instead of
	 * returning, so that a surrounding transaction rolls back, or LOG a warning and
	 * return the result.
	 */
	private LostLockAction lostLockAction = LostLockAction.THROW;

	/**
	 * Whether to store the owner of each lock node in the node as JSON: the
	 * application name, host, process id and thread.
	 */
	private boolean ownerData = true;

	private final Retry retry = new Retry();

	private final Startup startup = new Startup();

	private final PauseDetection pauseDetection = new PauseDetection();

	private final Auth auth = new Auth();

	private final Tls tls = new Tls();

	private final Ssl ssl = new Ssl();

	private final Embedded embedded = new Embedded();

	private final LocalHandoff localHandoff = new LocalHandoff();

	private final DeadlockDetection deadlockDetection = new DeadlockDetection();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getConnectString() {
		return this.connectString;
	}

	public void setConnectString(String connectString) {
		this.connectString = connectString;
	}

	public ClientMode getClientMode() {
		return this.clientMode;
	}

	public void setClientMode(ClientMode clientMode) {
		this.clientMode = clientMode;
	}

	public @Nullable String getNamespace() {
		return this.namespace;
	}

	public void setNamespace(@Nullable String namespace) {
		this.namespace = namespace;
	}

	public Duration getSessionTimeout() {
		return this.sessionTimeout;
	}

	public void setSessionTimeout(Duration sessionTimeout) {
		this.sessionTimeout = sessionTimeout;
	}

	public Duration getConnectionTimeout() {
		return this.connectionTimeout;
	}

	public void setConnectionTimeout(Duration connectionTimeout) {
		this.connectionTimeout = connectionTimeout;
	}

	public String getBasePath() {
		return this.basePath;
	}

	public void setBasePath(String basePath) {
		this.basePath = basePath;
	}

	public Duration getDefaultTimeout() {
		return this.defaultTimeout;
	}

	public void setDefaultTimeout(Duration defaultTimeout) {
		this.defaultTimeout = defaultTimeout;
	}

	public @Nullable Duration getMaxHold() {
		return this.maxHold;
	}

	public void setMaxHold(@Nullable Duration maxHold) {
		this.maxHold = maxHold;
	}

	public @Nullable Duration getHoldWarning() {
		return this.holdWarning;
	}

	public void setHoldWarning(@Nullable Duration holdWarning) {
		this.holdWarning = holdWarning;
	}

	public int getAspectOrder() {
		return this.aspectOrder;
	}

	public void setAspectOrder(int aspectOrder) {
		this.aspectOrder = aspectOrder;
	}

	public ConnectionLossPolicy getConnectionLossPolicy() {
		return this.connectionLossPolicy;
	}

	public void setConnectionLossPolicy(ConnectionLossPolicy connectionLossPolicy) {
		this.connectionLossPolicy = connectionLossPolicy;
	}

	public boolean isInterruptOnLoss() {
		return this.interruptOnLoss;
	}

	public void setInterruptOnLoss(boolean interruptOnLoss) {
		this.interruptOnLoss = interruptOnLoss;
	}

	public LostLockAction getLostLockAction() {
		return this.lostLockAction;
	}

	public void setLostLockAction(LostLockAction lostLockAction) {
		this.lostLockAction = lostLockAction;
	}

	public boolean isOwnerData() {
		return this.ownerData;
	}

	public void setOwnerData(boolean ownerData) {
		this.ownerData = ownerData;
	}

	public Retry getRetry() {
		return this.retry;
	}

	public Startup getStartup() {
		return this.startup;
	}

	public PauseDetection getPauseDetection() {
		return this.pauseDetection;
	}

	public Auth getAuth() {
		return this.auth;
	}

	public Tls getTls() {
		return this.tls;
	}

	public Ssl getSsl() {
		return this.ssl;
	}

	public Embedded getEmbedded() {
		return this.embedded;
	}

	public LocalHandoff getLocalHandoff() {
		return this.localHandoff;
	}

	public DeadlockDetection getDeadlockDetection() {
		return this.deadlockDetection;
	}

	@Override
	public void afterPropertiesSet() {
		ZkLockPropertiesValidator.validate(this);
		LocalHandoffPropertiesValidator.validate(this.localHandoff);
		DeadlockDetectionPropertiesValidator.validate(this.deadlockDetection);
	}

	/**
	 * Which Curator client zk-lock uses.
	 */
	public enum ClientMode {

		/**
		 * Share the application's CuratorFramework bean when no zk-lock connection
		 * setting is given, otherwise build zk-lock's own client.
		 */
		AUTO,

		/**
		 * Share the application's CuratorFramework bean; zk-lock connection settings
		 * are then an error.
		 */
		SHARED,

		/**
		 * Build zk-lock's own client from the zk-lock connection settings.
		 */
		DEDICATED

	}

	/**
	 * Connection state from which held locks no longer count as held.
	 */
	public enum ConnectionLossPolicy {

		/**
		 * A suspended connection puts held locks in doubt (Curator's
		 * {@code StandardConnectionStateErrorPolicy}).
		 */
		SUSPENDED,

		/**
		 * Only a lost session loses held locks (Curator's
		 * {@code SessionConnectionStateErrorPolicy}).
		 */
		LOST

	}

	/**
	 * Exponential backoff between connection retries.
	 */
	public static class Retry {

		/**
		 * Initial sleep between retries.
		 */
		private Duration baseSleep = Duration.ofMillis(100);

		/**
		 * Longest sleep between retries.
		 */
		private Duration maxSleep = Duration.ofSeconds(5);

		/**
		 * Maximum number of retries of one operation, from 0 to 29.
		 */
		private int maxRetries = 10;

		public Duration getBaseSleep() {
			return this.baseSleep;
		}

		public void setBaseSleep(Duration baseSleep) {
			this.baseSleep = baseSleep;
		}

		public Duration getMaxSleep() {
			return this.maxSleep;
		}

		public void setMaxSleep(Duration maxSleep) {
			this.maxSleep = maxSleep;
		}

		public int getMaxRetries() {
			return this.maxRetries;
		}

		public void setMaxRetries(int maxRetries) {
			this.maxRetries = maxRetries;
		}

	}

	/**
	 * What happens while the client first connects.
	 */
	public static class Startup {

		/**
		 * How long startup blocks until the client is connected.
		 */
		private Duration wait = Duration.ofSeconds(10);

		/**
		 * Whether startup fails when the client is not connected within the wait.
		 * When false, the application starts and the client keeps retrying.
		 */
		private boolean failFast = true;

		public Duration getWait() {
			return this.wait;
		}

		public void setWait(Duration wait) {
			this.wait = wait;
		}

		public boolean isFailFast() {
			return this.failFast;
		}

		public void setFailFast(boolean failFast) {
			this.failFast = failFast;
		}

	}

	/**
	 * Pause detection: a held lock reports IN_DOUBT at once when this process was
	 * silent (a GC pause, SIGSTOP, a frozen VM) for longer than a quarter of the
	 * negotiated session timeout, until ZooKeeper confirms it again.
	 */
	public static class PauseDetection {

		/**
		 * Whether holds notice that this process was paused.
		 */
		private boolean enabled = true;

		/**
		 * How often the pause detector's ticker records that the process runs. Also the
		 * shortest maxHold a @DistributedLock may declare.
		 */
		private Duration tick = Duration.ofMillis(10);

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getTick() {
			return this.tick;
		}

		public void setTick(Duration tick) {
			this.tick = tick;
		}

	}

	/**
	 * Authentication. When set, every node zk-lock creates gets a CREATOR_ALL ACL.
	 */
	public static class Auth {

		/**
		 * Authentication scheme, such as "digest".
		 */
		private @Nullable String scheme;

		/**
		 * Credentials for the scheme, such as "user:password" for digest. Never logged.
		 */
		private @Nullable String credentials;

		public @Nullable String getScheme() {
			return this.scheme;
		}

		public void setScheme(@Nullable String scheme) {
			this.scheme = scheme;
		}

		public @Nullable String getCredentials() {
			return this.credentials;
		}

		public void setCredentials(@Nullable String credentials) {
			this.credentials = credentials;
		}

	}

	/**
	 * TLS for the client connection.
	 */
	public static class Tls {

		/**
		 * Whether to connect to ZooKeeper's secure client port over TLS.
		 */
		private boolean enabled;

		/**
		 * Path of the key store file holding the client certificate.
		 */
		private @Nullable String keyStore;

		/**
		 * Password of the key store.
		 */
		private @Nullable String keyStorePassword;

		/**
		 * Type of the key store, such as PKCS12 or JKS. Detected from the file name
		 * when not set.
		 */
		private @Nullable String keyStoreType;

		/**
		 * Path of the trust store file that verifies the server certificate.
		 */
		private @Nullable String trustStore;

		/**
		 * Password of the trust store.
		 */
		private @Nullable String trustStorePassword;

		/**
		 * Type of the trust store, such as PKCS12 or JKS. Detected from the file
		 * name when not set.
		 */
		private @Nullable String trustStoreType;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public @Nullable String getKeyStore() {
			return this.keyStore;
		}

		public void setKeyStore(@Nullable String keyStore) {
			this.keyStore = keyStore;
		}

		public @Nullable String getKeyStorePassword() {
			return this.keyStorePassword;
		}

		public void setKeyStorePassword(@Nullable String keyStorePassword) {
			this.keyStorePassword = keyStorePassword;
		}

		public @Nullable String getKeyStoreType() {
			return this.keyStoreType;
		}

		public void setKeyStoreType(@Nullable String keyStoreType) {
			this.keyStoreType = keyStoreType;
		}

		public @Nullable String getTrustStore() {
			return this.trustStore;
		}

		public void setTrustStore(@Nullable String trustStore) {
			this.trustStore = trustStore;
		}

		public @Nullable String getTrustStorePassword() {
			return this.trustStorePassword;
		}

		public void setTrustStorePassword(@Nullable String trustStorePassword) {
			this.trustStorePassword = trustStorePassword;
		}

		public @Nullable String getTrustStoreType() {
			return this.trustStoreType;
		}

		public void setTrustStoreType(@Nullable String trustStoreType) {
			this.trustStoreType = trustStoreType;
		}

	}

	/**
	 * TLS for the client connection through a Spring Boot SSL bundle.
	 */
	public static class Ssl {

		/**
		 * Name of the SSL bundle (spring.ssl.bundle.jks.* or spring.ssl.bundle.pem.*)
		 * whose key and trust material the client connects with over TLS. Setting it
		 * turns TLS on; the zk-lock.tls.* store properties are then not used.
		 */
		private @Nullable String bundle;

		public @Nullable String getBundle() {
			return this.bundle;
		}

		public void setBundle(@Nullable String bundle) {
			this.bundle = bundle;
		}

	}

	/**
	 * An in-process ZooKeeper server, for development only.
	 */
	public static class Embedded {

		/**
		 * Whether to start an in-process ZooKeeper server before the client and
		 * connect to it. For development only.
		 */
		private boolean enabled;

		/**
		 * Client port of the embedded server; 0 picks a free port.
		 */
		private int port;

		/**
		 * Data directory of the embedded server. By default a temporary directory
		 * that is removed on shutdown.
		 */
		private @Nullable String dataDir;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public int getPort() {
			return this.port;
		}

		public void setPort(int port) {
			this.port = port;
		}

		public @Nullable String getDataDir() {
			return this.dataDir;
		}

		public void setDataDir(@Nullable String dataDir) {
			this.dataDir = dataDir;
		}

	}

	/**
	 * Local hand-off of hot keys, for locks that ask for it (@DistributedLock
	 * localHandoff = true, or LockRequest.Builder.localHandoff): how long one node of
	 * this process keeps passing a key among its own threads once another process
	 * waits for it.
	 */
	public static class LocalHandoff {

		/**
		 * Most passes of a key from one local holder to the next within one tenure (one
		 * node of this process) once another process waits for the key; while none
		 * waits, passes are not bounded. 0 passes none then: each local waiter goes
		 * through ZooKeeper.
		 */
		private int maxPasses = 16;

		/**
		 * Longest time a tenure passes the key locally, from its grant, once another
		 * process waits for the key. 0 stops passing as soon as one waits.
		 */
		private Duration maxTime = Duration.ofMillis(50);

		public int getMaxPasses() {
			return this.maxPasses;
		}

		public void setMaxPasses(int maxPasses) {
			this.maxPasses = maxPasses;
		}

		public Duration getMaxTime() {
			return this.maxTime;
		}

		public void setMaxTime(Duration maxTime) {
			this.maxTime = maxTime;
		}

	}

	/**
	 * Deadlock detection: a wait that lasts past {@code after} is published in
	 * ZooKeeper and looks for a cycle among the waits of every instance; one wait of
	 * a cycle, the newest, fails with a LockDeadlockException so that the others go
	 * on.
	 */
	public static class DeadlockDetection {

		/**
		 * Whether a wait past `after` looks for a deadlock among the waits of every
		 * instance and fails one member of a cycle with LockDeadlockException. When
		 * false, a deadlock lasts until the waits time out.
		 */
		private boolean enabled = true;

		/**
		 * How long a wait lasts before it is published and looks for a cycle; shorter
		 * waits cost no ZooKeeper request.
		 */
		private Duration after = Duration.ofSeconds(1);

		/**
		 * How many deadlocks resolved by this instance the locks endpoint shows, newest
		 * first.
		 */
		private int history = 10;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getAfter() {
			return this.after;
		}

		public void setAfter(Duration after) {
			this.after = after;
		}

		public int getHistory() {
			return this.history;
		}

		public void setHistory(int history) {
			this.history = history;
		}

	}

}
