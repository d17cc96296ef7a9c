/// <reference lib="dom" />
// AdminJS's notices, the newest only: AdminJS meant each to fade after three seconds, but its timer
// never gets past the first second, so an earlier red refusal stayed beside the green success that
// followed it. A notice now stays until it is closed or the next one replaces it.
import React, { useEffect } from 'react';
import { useDispatch, useSelector } from 'react-redux';

type Props = { OriginalComponent?: React.ComponentType<Record<string, unknown>> } & Record<string, unknown>;

const NoticeBox: React.FC<Props> = ({ OriginalComponent, ...rest }) => {
  const notices = useSelector((state: { notices: Array<{ id: string }> }) => state.notices);
  const dispatch = useDispatch();
  useEffect(() => {
    // the store keeps them in order of arrival: all but the last are earlier news
    for (const notice of notices.slice(0, -1)) dispatch({ type: 'DROP_NOTICE', data: { noticeId: notice.id } });
  }, [notices, dispatch]);
  return OriginalComponent ? <OriginalComponent {...rest} /> : null;
};

export default NoticeBox;
