package dev.zklock.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionStateErrorPolicy;
import org.apache.curator.framework.state.SessionConnectionStateErrorPolicy;
import org.apache.curator.framework.state.StandardConnectionStateErrorPolicy;
import org.apache.curator.retry.ExponentialBackoffRetry;

import org.springframework.util.StringUtils;

/**
 * Creates a {@link CuratorFrameworkFactory.Builder} from {@link ZkLockProperties}.
 */
final class CuratorFrameworkBuilderFactory {

	private CuratorFrameworkBuilderFactory() {
	}

	static CuratorFrameworkFactory.Builder create(String connectString, ZkLockProperties properties) {
		ZkLockProperties.Retry retry = properties.getRetry();
		CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
			.connectString(connectString)
			.sessionTimeoutMs((int) properties.getSessionTimeout().toMillis())
			.connectionTimeoutMs((int) properties.getConnectionTimeout().toMillis())
			.retryPolicy(new ExponentialBackoffRetry((int) retry.getBaseSleep().toMillis(), retry.getMaxRetries(),
					(int) retry.getMaxSleep().toMillis()))
			.connectionStateErrorPolicy(errorPolicy(properties.getConnectionLossPolicy()));
		if (StringUtils.hasText(properties.getNamespace())) {
			builder.namespace(properties.getNamespace());
		}
		ZkLockProperties.Auth auth = properties.getAuth();
		if (StringUtils.hasText(auth.getScheme())) {
			// the validator has checked that credentials go with a scheme
			byte[] credentials = Objects.requireNonNull(auth.getCredentials()).getBytes(StandardCharsets.UTF_8);
			builder.authorization(auth.getScheme(), credentials)
				.aclProvider(new CreatorAllAclProvider());
		}
		if (properties.getTls().isEnabled()) {
			builder.zkClientConfig(ZooKeeperTlsClientConfig.create(properties.getTls()));
		}
		return builder;
	}

	private static ConnectionStateErrorPolicy errorPolicy(ZkLockProperties.ConnectionLossPolicy policy) {
		return (policy == ZkLockProperties.ConnectionLossPolicy.LOST) ? new SessionConnectionStateErrorPolicy()
				: new StandardConnectionStateErrorPolicy();
	}

}
