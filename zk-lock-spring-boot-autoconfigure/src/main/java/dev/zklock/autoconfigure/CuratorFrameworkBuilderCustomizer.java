package dev.zklock.autoconfigure;

import org.apache.curator.framework.CuratorFrameworkFactory;

/**
 * Callback to customize the {@link CuratorFrameworkFactory.Builder} of the
 * auto-configured client after zk-lock has applied its properties. Customizers run in
 * {@link org.springframework.core.Ordered order}.
 */
@FunctionalInterface
public interface CuratorFrameworkBuilderCustomizer {

	/**
	 * Customize the builder.
	 * @param builder the builder, with the {@code zk-lock.*} properties applied
	 */
	void customize(CuratorFrameworkFactory.Builder builder);

}
